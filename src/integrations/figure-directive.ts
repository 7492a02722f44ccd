/**
 * Sätteri mdast plugin: turns a `::figure{…}` or `::diagram{…}` line in a card into a slot that the card page fills with the
 * figure's static HTML (`expandFigureSlots` in src/lib/figures/slots.ts). The slot holds only the directive's
 * attributes, so Astro's cache of rendered Markdown never keeps a stale picture when a figure's code changes.
 * An unknown figure or value fails here too, naming the file (checkDeck reports it first for cards).
 */
import { defineMdastPlugin, type MdastPluginEntry, type PluginFactoryContext } from 'satteri';
import { looksLikeDiagram, looksLikeFigure, parseFigureLine } from '../lib/figures/directive.ts';
import { diagramSlot, figureSlot } from '../lib/figures/slots.ts';
import { resolveDiagram } from '../lib/diagrams/registry.ts';
import { resolveFigure } from '../lib/figures/registry.ts';

/** The plugin entry for `satteri({ mdastPlugins: [figureDirective] })`: one instance per document. */
export const figureDirective: MdastPluginEntry = (ctx: PluginFactoryContext) => {
  const file = ctx.fileURL
    ? decodeURIComponent(ctx.fileURL.pathname).replace(`${process.cwd()}/`, '')
    : 'a Markdown file';
  if (!ctx.source.includes('::figure') && !ctx.source.includes('::diagram')) return null;
  return defineMdastPlugin({
    name: 'saturate-figure',
    paragraph(node, visit) {
      const only = node.children.length === 1 ? node.children[0] : undefined;
      if (!only || only.type !== 'text') return;
      const diagram = looksLikeDiagram(only.value);
      if (!diagram && !looksLikeFigure(only.value)) return;
      try {
        const attrs = parseFigureLine(only.value);
        if (!diagram) resolveFigure(attrs);
        const value = diagram ? diagramSlot(resolveDiagram(attrs).name) : figureSlot(attrs);
        visit.replaceNode(node, { type: 'html', value });
      } catch (e) {
        throw new Error(`${file}: ${(e as Error).message}`);
      }
    },
  });
};
