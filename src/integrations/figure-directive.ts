/**
 * Sätteri mdast plugin: turns a `::figure{…}` line in a card into the figure's static HTML
 * (src/lib/figures/html.ts). An unknown figure or value fails the build with the file and the fix.
 */
import { defineMdastPlugin, type MdastPluginEntry, type PluginFactoryContext } from 'satteri';
import { looksLikeFigure, parseFigureLine } from '../lib/figures/directive.ts';
import { figureHtml } from '../lib/figures/html.ts';
import { resolveFigure } from '../lib/figures/registry.ts';

/** The plugin entry for `satteri({ mdastPlugins: [figureDirective] })`: one instance per document. */
export const figureDirective: MdastPluginEntry = (ctx: PluginFactoryContext) => {
  const file = ctx.fileURL
    ? decodeURIComponent(ctx.fileURL.pathname).replace(`${process.cwd()}/`, '')
    : 'a Markdown file';
  if (!ctx.source.includes('::figure')) return null;
  let count = 0;
  return defineMdastPlugin({
    name: 'saturate-figure',
    paragraph(node, visit) {
      const only = node.children.length === 1 ? node.children[0] : undefined;
      if (!only || only.type !== 'text' || !looksLikeFigure(only.value)) return;
      try {
        const { figure, values } = resolveFigure(parseFigureLine(only.value));
        count += 1;
        visit.replaceNode(node, { type: 'html', value: figureHtml(figure, values, `fig-${count}`) });
      } catch (e) {
        throw new Error(`${file}: ${(e as Error).message}`);
      }
    },
  });
};
