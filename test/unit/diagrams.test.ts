import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DIAGRAMS, diagramHtml, resolveDiagram } from '../../src/lib/diagrams/registry.ts';
import { checkFigures } from '../../src/lib/figures/check.ts';
import { diagramSlot, expandFigureSlots, figureSlot } from '../../src/lib/figures/slots.ts';

/** Each diagram and the card it explains. */
const DIAGRAM_CARDS: Record<string, string> = {
  'gpu-anatomy': 'content/cards/meters/dcgm-profiling-metrics.md',
  'tool-counters': 'content/cards/meters/nvml.md',
  'launch-queue': 'content/cards/training/host-device-syncs.md',
  'training-step': 'content/cards/tooling/nsight-systems.md',
  'serving-path': 'content/cards/serving/llm-serving-metrics.md',
  'multi-node': 'content/cards/training/infiniband-roce-gpudirect-rdma.md',
  'moe-dispatch': 'content/cards/training/moe-expert-parallelism.md',
  'activation-memory': 'content/cards/training/activation-memory-recomputation.md',
  'hang-triage': 'content/cards/tooling/debugging-hangs-end-to-end.md',
  'ring-vs-tree': 'content/cards/training/collective-algorithms-ring-tree.md',
  'ring-attention': 'content/cards/training/context-sequence-parallelism.md',
  'microscaling-blocks': 'content/cards/training/blackwell-microscaling-nvl72.md',
};

describe('static diagrams', () => {
  test('at least six, each placed in the card it explains', () => {
    expect(Object.keys(DIAGRAMS).sort()).toEqual(Object.keys(DIAGRAM_CARDS).sort());
    for (const [name, card] of Object.entries(DIAGRAM_CARDS))
      expect(readFileSync(card, 'utf8'), card).toContain(`\n::diagram{name="${name}"}\n`);
  });
  test('each is an inline SVG with role="img", a title and a description that name it, and a caption', () => {
    for (const d of Object.values(DIAGRAMS)) {
      const html = diagramHtml(d);
      expect(html).toMatch(
        new RegExp(
          `^<figure class="dgm" data-diagram="${d.name}"><svg viewBox="0 0 320 ${d.height}" role="img" aria-labelledby="dgm-${d.name}-t" aria-describedby="dgm-${d.name}-d">`,
        ),
      );
      expect(html).toContain(`<title id="dgm-${d.name}-t">`);
      expect(html).toContain(`<desc id="dgm-${d.name}-d">`);
      expect(d.desc.length, d.name).toBeGreaterThan(150);
      expect(html).toMatch(/<figcaption>[^<]{20,}<\/figcaption><\/figure>$/);
      expect(html).not.toMatch(/NaN|undefined|<script|href=/);
    }
  });
  test('themed from the page: no colour is written into the SVG', () => {
    for (const d of Object.values(DIAGRAMS))
      expect(d.svg, d.name).not.toMatch(/fill="|stroke="|style=|#[0-9a-f]{3,6}\b/i);
  });
  test('everything drawn stays inside the 320-wide viewBox', () => {
    for (const d of Object.values(DIAGRAMS)) {
      for (const m of d.svg.matchAll(/<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.-]+)" height="([\d.-]+)"/g)) {
        const [x, y, w, h] = m.slice(1).map(Number) as [number, number, number, number];
        expect(x >= 0 && x + w <= 320 && y >= 0 && y + h <= d.height, `${d.name}: ${m[0]}`).toBe(true);
      }
      for (const m of d.svg.matchAll(/<text x="([\d.-]+)" y="([\d.-]+)"/g))
        expect(Number(m[2]) <= d.height && Number(m[1]) <= 320, `${d.name}: ${m[0]}`).toBe(true);
    }
  });
  test('a slot becomes the inline diagram, beside figures; an unknown name or extra value names the choices', () => {
    const out = expandFigureSlots(`${diagramSlot('gpu-anatomy')}<p>x</p>${figureSlot({ name: 'mfu' })}`);
    expect(out).toContain(diagramHtml(DIAGRAMS['gpu-anatomy']!));
    expect(out).toContain('<figure class="fig" id="fig-1" data-figure="mfu"');
    expect(() => resolveDiagram({ name: 'gpu-anatomie' })).toThrow(
      /unknown diagram "gpu-anatomie"; known diagrams: gpu-anatomy/,
    );
    expect(() => resolveDiagram({ name: 'gpu-anatomy', gpu: 'h200' })).toThrow(/takes only a name, not gpu/);
    expect(checkFigures('a.md', '::diagram{name="nope"}')).toEqual([
      'a.md: ::diagram{name="nope"}: unknown diagram "nope"; known diagrams: gpu-anatomy, tool-counters, launch-queue, training-step, serving-path, multi-node, moe-dispatch, activation-memory, hang-triage, ring-vs-tree, ring-attention, microscaling-blocks',
    ]);
  });
});
