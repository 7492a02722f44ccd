/**
 * Every static diagram by name, and the HTML a card gets for one: an inline SVG with role="img", a <title> and a
 * <desc> (its alt text), and a caption. No script and no extra request: the SVG is part of the page.
 */
import { esc } from '../figures/format.ts';
import { hangTriage, ringVsTree } from './distributed.ts';
import { gpuAnatomy, microscalingBlocks, multiNode } from './hardware.ts';
import { activationMemory, moeDispatch, ringAttention } from './parallelism.ts';
import { launchQueue, toolCounters } from './software.ts';
import type { DiagramDef } from './types.ts';
import { servingPath, trainingStep } from './workloads.ts';

/** The diagrams a card may place with `::diagram{name="…"}`. */
export const DIAGRAMS: Record<string, DiagramDef> = Object.fromEntries(
  [
    gpuAnatomy,
    toolCounters,
    launchQueue,
    trainingStep,
    servingPath,
    multiNode,
    moeDispatch,
    activationMemory,
    hangTriage,
    ringVsTree,
    ringAttention,
    microscalingBlocks,
  ].map((d) => [d.name, d]),
);

/**
 * The diagram a directive names; throws an Error naming the known diagrams.
 * @example resolveDiagram({ name: 'gpu-anatomy' }).height // 248
 */
export function resolveDiagram(attributes: Record<string, string>): DiagramDef {
  const names = Object.keys(DIAGRAMS).join(', ');
  const extra = Object.keys(attributes).filter((k) => k !== 'name');
  if (extra.length) throw new Error(`a diagram takes only a name, not ${extra.join(', ')}; known diagrams: ${names}`);
  const d = DIAGRAMS[attributes['name'] ?? ''];
  if (!d) throw new Error(`unknown diagram "${attributes['name'] ?? ''}"; known diagrams: ${names}`);
  return d;
}

/** A diagram's HTML. */
export function diagramHtml(d: DiagramDef): string {
  const id = `dgm-${d.name}`;
  return (
    `<figure class="dgm" data-diagram="${d.name}">` +
    `<svg viewBox="0 0 320 ${d.height}" role="img" aria-labelledby="${id}-t" aria-describedby="${id}-d">` +
    `<title id="${id}-t">${esc(d.title)}</title><desc id="${id}-d">${esc(d.desc)}</desc>${d.svg}</svg>` +
    `<figcaption>${esc(d.caption)}</figcaption></figure>`
  );
}
