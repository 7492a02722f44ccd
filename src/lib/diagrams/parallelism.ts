/**
 * Parallelism diagrams: a mixture-of-experts layer's all-to-all dispatch and combine across an expert-parallel group
 * (content/cards/training/moe-expert-parallelism.md), and what one transformer layer keeps for the backward pass
 * (content/cards/training/activation-memory-recomputation.md).
 */
import { arrow, bar, box, label } from './svg.ts';
import type { DiagramDef } from './types.ts';

function moeSvg(): string {
  const xs = [4, 70, 136, 202];
  const w = 62;
  let svg = label(4, 12, 'each GPU holds its own tokens; a router picks 2 experts', 'dg-s');
  for (const [i, x] of xs.entries()) svg += box(x, 18, w, 28, [`GPU ${i}`, 'router']);
  // Dispatch: every GPU sends to every other; only GPU 0's and GPU 2's fan-out is drawn, to keep it readable.
  for (const from of [0, 2])
    for (const to of [0, 1, 2, 3]) svg += arrow(xs[from]! + w / 2, 46, xs[to]! + w / 2, 82, { dashed: from !== to });
  svg += label(270, 60, 'all-to-all', 'dg-s') + label(270, 72, 'dispatch', 'dg-s');
  for (const [i, x] of xs.entries())
    svg += box(
      x,
      84,
      w,
      28,
      [`E${i * 16}–${i * 16 + 15}`, i === 1 ? 'hot 1.8×' : 'experts'],
      i === 1 ? 'dg-hi' : 'dg-box',
    );
  // The step waits for the busiest GPU: each GPU's expert GEMMs, then the wait in the combine.
  for (const [i, x] of xs.entries()) {
    const work = i === 1 ? w : 34;
    svg += arrow(x + w / 2, 112, x + w / 2, 118) + bar(x, 120, work, 14, 'dg-a');
    if (work < w) svg += bar(x + work, 120, w - work, 14, 'dg-soft');
  }
  svg +=
    label(270, 131, 'time', 'dg-s') +
    label(4, 150, 'Dark: expert GEMMs. Light: waiting inside the combine.', 'dg-s') +
    box(4, 156, 312, 26, ['all-to-all combine: outputs go home'], 'dg-box') +
    label(4, 200, 'Capacity per expert = tokens × k ÷ experts × factor.', 'dg-s') +
    label(4, 214, 'Tokens past it are dropped (they skip the layer', 'dg-s') +
    label(4, 228, 'through the residual) or, dropless, the busiest', 'dg-s') +
    label(4, 242, 'GPU sets the pace.', 'dg-s');
  return svg;
}

/** A mixture-of-experts layer across four expert-parallel GPUs. */
export const moeDispatch: DiagramDef = {
  name: 'moe-dispatch',
  title: 'A mixture-of-experts layer on four expert-parallel GPUs',
  desc:
    'Four GPUs each hold their own tokens and a router that picks two experts per token. An all-to-all dispatch ' +
    'sends every token to the GPUs holding its experts: each GPU sends to every other. Each GPU then runs the GEMMs ' +
    'of its 16 experts. GPU 1 holds a hot expert and received 1.8 times the average tokens, so its GEMMs run longest ' +
    'while the other three wait inside the combine all-to-all, which returns each output to its home GPU weighted by ' +
    'the gate. Expert capacity is tokens times k divided by experts times the capacity factor; tokens past it are ' +
    'dropped and skip the layer through the residual connection, or, without dropping, the busiest GPU sets the pace.',
  caption: 'Dispatch, expert GEMMs, combine: two all-to-alls per MoE layer, and the slowest GPU sets the pace.',
  height: 250,
  svg: moeSvg(),
};

/** One bar per setting, in units of sbh bytes: [replicated on each TP rank, split by TP, attention-score part]. */
const ACT_ROWS: readonly { name: string; mb: string; parts: readonly [number, number, number] }[] = [
  { name: 'TP 8 alone', mb: '579 MB', parts: [10, 3, 10] },
  { name: 'TP 8 + SP', mb: '359 MB', parts: [0, 4.25, 10] },
  { name: '+ selective', mb: '107 MB', parts: [0, 4.25, 0] },
  { name: 'full recompute', mb: '50 MB', parts: [2, 0, 0] },
];

function activationSvg(): string {
  const x0 = 104;
  const pxPerUnit = 208 / 23;
  let svg = label(4, 12, 'GPT-3 175B, one layer, one GPU: s 2,048, h 12,288, TP 8', 'dg-s');
  for (const [i, row] of ACT_ROWS.entries()) {
    const y = 22 + i * 34;
    svg += label(4, y + 11, row.name, 'dg-bold') + label(4, y + 24, row.mb, 'dg-s');
    let x = x0;
    for (const [k, units] of row.parts.entries()) {
      if (units === 0) continue;
      const w = units * pxPerUnit;
      svg += bar(x, y + 2, w, 22, ['dg-soft', 'dg-b', 'dg-a'][k]!);
      x += w;
    }
  }
  svg +=
    bar(4, 162, 14, 10, 'dg-soft') +
    label(22, 171, 'replicated on each TP rank (norms, dropout)', 'dg-s') +
    bar(4, 178, 14, 10, 'dg-b') +
    label(22, 187, 'split across the TP ranks', 'dg-s') +
    bar(4, 194, 14, 10, 'dg-a') +
    label(22, 203, 'softmax output, dropout mask and output (5as/h)', 'dg-s') +
    label(4, 222, 'Full recomputation keeps only each layer input', 'dg-s') +
    label(4, 236, 'and reruns the forward: a third more compute.', 'dg-s');
  return svg;
}

/** Activation memory per layer under each setting of Korthikanti et al. (2022). */
export const activationMemory: DiagramDef = {
  name: 'activation-memory',
  title: 'Activation memory of one GPT-3 175B layer under four settings',
  desc:
    'Four horizontal bars give the bytes one GPU keeps for backward for one GPT-3 175B layer (sequence 2,048, hidden ' +
    '12,288, 96 heads, tensor parallelism 8). Tensor parallelism alone keeps 579 MB: a replicated part for layer ' +
    'norms and dropout, a part split by TP, and a large attention-score part (softmax output and its dropout). Adding sequence parallelism removes ' +
    'the replicated part: 359 MB. Selective recomputation also drops the attention-score part: 107 MB. Full ' +
    'recomputation keeps only each layer input, 50 MB, and reruns the forward pass at a third more compute.',
  caption: 'Per-layer activations of GPT-3 175B at TP 8 (Korthikanti et al. 2022): each setting removes a part.',
  height: 244,
  svg: activationSvg(),
};
