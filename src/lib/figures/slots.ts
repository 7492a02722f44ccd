/**
 * Figure slots: what a `::figure{…}` line renders to in Markdown (src/integrations/figure-directive.ts), filled on
 * the card page with the figure's static HTML. Kept apart from html.ts, which the browser loads, because it needs
 * every figure (the registry).
 */
import { esc } from './format.ts';
import { figureHtml } from './html.ts';
import { resolveFigure } from './registry.ts';
import { diagramHtml, resolveDiagram } from '../diagrams/registry.ts';

/** The placeholder a `::figure{…}` line renders to: its attributes, expanded on the page by `expandFigureSlots`. */
export function figureSlot(attrs: Record<string, string>): string {
  return `<div data-figure-slot="${esc(JSON.stringify(attrs))}"></div>`;
}

/** The placeholder a `::diagram{name="…"}` line renders to, expanded on the page by `expandFigureSlots`. */
export function diagramSlot(name: string): string {
  return `<div data-diagram-slot="${esc(name)}"></div>`;
}

/**
 * Replaces every diagram slot with its inline SVG, and every figure slot in rendered card HTML with the figure's static HTML, numbered fig-1, fig-2, ….
 * @example expandFigureSlots('<p>no figures</p>') // "<p>no figures</p>"
 */
export function expandFigureSlots(html: string): string {
  let n = 0;
  const withDiagrams = html.replace(/<div data-diagram-slot="([\w-]+)"><\/div>/g, (_, name: string) =>
    diagramHtml(resolveDiagram({ name })),
  );
  return withDiagrams.replace(/<div data-figure-slot="([^"]*)"><\/div>/g, (_, json: string) => {
    const attrs = JSON.parse(
      json
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
    const { figure, values } = resolveFigure(attrs as Record<string, string>);
    n += 1;
    return figureHtml(figure, values, `fig-${n}`);
  });
}
