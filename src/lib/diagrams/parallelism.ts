/**
 * Parallelism diagrams: a mixture-of-experts layer's all-to-all dispatch and combine across an expert-parallel group
 * (content/cards/training/moe-expert-parallelism.md), what one transformer layer keeps for the backward pass
 * (content/cards/training/activation-memory-recomputation.md), and ring attention across a context-parallel group
 * (content/cards/training/context-sequence-parallelism.md).
 */
import { arrow, bar, box, label, line } from './svg.ts';
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
    label(22, 171, 'replicated per TP rank (norms, dropout, inputs)', 'dg-s') +
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
    'norms, dropout and the inputs of the first matmuls, a part split by TP, and a large attention-score part (softmax output and its dropout). Adding sequence parallelism removes ' +
    'the replicated part: 359 MB. Selective recomputation also drops the attention-score part: 107 MB. Full ' +
    'recomputation keeps only each layer input (replicated on each TP rank), 50 MB, and reruns the forward pass at a third more compute.',
  caption: 'Per-layer activations of GPT-3 175B at TP 8 (Korthikanti et al. 2022): each setting removes a part.',
  height: 244,
  svg: activationSvg(),
};

/** Context-parallel degree drawn: 4, as in the card's causal-balance question (pieces i and 7 − i of 8). */
const CP = 4;

function ringSvg(): string {
  let svg = label(4, 12, `CP ${CP}: each GPU keeps its own Q chunk; K/V travel`, 'dg-s');
  // Four GPUs on a ring, each sending its current K/V chunk to the next.
  const centres: readonly (readonly [number, number])[] = [
    [70, 38],
    [114, 84],
    [70, 130],
    [26, 84],
  ];
  for (const [i, [x, y]] of centres.entries()) svg += box(x - 22, y - 14, 44, 28, [`GPU ${i}`, `Q${i}`]);
  svg +=
    arrow(92, 44, 108, 70) +
    arrow(108, 98, 92, 124) +
    arrow(48, 124, 32, 98) +
    arrow(32, 70, 48, 44) +
    label(70, 82, 'K/V', 'dg-s', 'middle') +
    label(70, 94, 'to next', 'dg-s', 'middle');
  // Which K/V chunk each GPU computes with at each step: GPU g holds chunk (g − step) mod CP; KV0's path is shaded.
  svg += label(146, 30, 'step', 'dg-s');
  for (let t = 0; t < CP; t++) svg += label(202 + t * 32, 30, String(t + 1), 'dg-s', 'middle');
  for (let g = 0; g < CP; g++) {
    const y = 36 + g * 20;
    svg += label(146, y + 14, `GPU ${g}`);
    for (let t = 0; t < CP; t++) {
      const kv = (g - t + CP) % CP;
      svg += box(187 + t * 32, y, 30, 18, [`KV${kv}`], kv === 0 ? 'dg-hi' : 'dg-box');
    }
  }
  svg +=
    label(146, 130, 'shaded: KV0 going round', 'dg-s') + label(146, 143, `${CP - 1} sends per layer (CP − 1)`, 'dg-s');
  // One GPU's timeline: attention on the chunk it holds while the next chunk arrives.
  svg += label(4, 166, 'GPU 0, one layer, forward', 'dg-bold') + label(4, 184, 'math', 'dg-s');
  for (let t = 0; t < CP; t++) {
    const x = 44 + t * 68;
    svg += bar(x, 172, 66, 16, 'dg-a', `Q0·KV${(CP - t) % CP}`);
    if (t < CP - 1) svg += bar(x + 2, 192, 48, 14, 'dg-soft', `KV${CP - 1 - t} in`);
  }
  svg +=
    label(4, 203, 'link', 'dg-s') +
    label(4, 224, 'Card example, CP 8, 16K-token chunks: a send ≈ 0.19 ms,', 'dg-s') +
    label(4, 237, 'a block’s math ≈ 1.8 ms: hidden. At 1K-token chunks', 'dg-s') +
    label(4, 250, 'the send (~12 µs) outlasts the math (~7 µs).', 'dg-s');
  // Causal balance: 2·CP pieces, GPU i takes pieces i and 2·CP − 1 − i.
  svg += label(4, 274, `Causal mask: ${2 * CP} pieces, GPU i takes i and ${2 * CP - 1} − i`, 'dg-bold');
  const owner = (p: number) => (p < CP ? p : 2 * CP - 1 - p);
  for (let p = 0; p < 2 * CP; p++)
    svg += box(4 + p * 39, 280, 37, 18, [`GPU ${owner(p)}`], owner(p) === 0 ? 'dg-hi' : 'dg-box');
  svg += label(4, 311, 'token order →', 'dg-s');
  // Attention work per GPU in chunk² units: contiguous chunk i sees i + ½ chunks of keys; pairs even it out.
  const base = 356;
  const groups: readonly (readonly [number, string, readonly number[]])[] = [
    [24, 'contiguous: waits for 3.5', [0.5, 1.5, 2.5, 3.5]],
    [184, `i and ${2 * CP - 1} − i: 2 each`, [2, 2, 2, 2]],
  ];
  for (const [x0, name, work] of groups) {
    for (const [g, units] of work.entries()) {
      const x = x0 + g * 28;
      const h = units * 10;
      svg += bar(x, base - h, 20, h, 'dg-a') + label(x + 10, base - h - 3, String(units), 'dg-s', 'middle');
    }
    svg += line(x0 - 4, base, x0 + 104, base) + label(x0 + 50, base + 13, name, 'dg-s', 'middle');
  }
  return svg;
}

/** Ring attention on a four-GPU context-parallel group, with the causal load-balancing split. */
export const ringAttention: DiagramDef = {
  name: 'ring-attention',
  title: 'Ring attention across four context-parallel GPUs',
  desc:
    'Four GPUs form a ring; each keeps the queries (Q) of its own chunk of the sequence and passes its current K/V ' +
    'chunk to the next GPU. A grid shows four steps: at step 1 GPU g computes attention with its own chunk, then ' +
    'with the chunk the previous GPU sent, so chunk KV0 visits GPU 0, 1, 2 and 3 in turn: CP − 1 = 3 sends per ' +
    'layer. A timeline for GPU 0 shows four attention blocks (Q0 with KV0, KV3, KV2, KV1) while the next chunk ' +
    'arrives underneath each of the first three, so the transfer hides behind the math. In the card example, CP 8 ' +
    'with 16K-token chunks, a send takes about 0.19 ms and a block about 1.8 ms; at 1K-token chunks the send (about ' +
    '12 µs) outlasts the math (about 7 µs). With a causal mask, contiguous chunks do unequal work: 0.5, 1.5, 2.5 and ' +
    '3.5 units, and the layer waits for the largest. Cutting the sequence into 8 pieces and giving GPU i pieces i ' +
    'and 7 − i gives every GPU 2 units.',
  caption:
    'Q stays, K/V goes round: each step’s transfer overlaps the math on the chunk held; pairing pieces balances the causal mask.',
  height: 374,
  svg: ringSvg(),
};
