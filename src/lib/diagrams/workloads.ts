/**
 * Workload diagrams: one data-parallel training step on a timeline (content/cards/tooling/nsight-systems.md), and an
 * LLM request's path through a server with the clocks TTFT and TPOT (content/cards/serving/llm-serving-metrics.md).
 */
import { arrow, bar, box, label, line } from './svg.ts';
import type { DiagramDef } from './types.ts';

function stepSvg(): string {
  const rows = ['data', 'copy', 'compute', 'NCCL'];
  let svg = rows.map((r, i) => label(4, 24 + i * 26, r, 'dg-bold')).join('');
  svg +=
    bar(56, 12, 150, 18, 'dg-soft', 'next batch (workers)') +
    bar(56, 38, 30, 18, 'dg-b', 'H2D') +
    bar(86, 64, 64, 18, 'dg-a', 'forward') +
    bar(152, 64, 124, 18, 'dg-a', 'backward') +
    bar(282, 64, 30, 18, 'dg-b', 'opt');
  for (const x of [180, 214, 248]) svg += bar(x, 90, 30, 18, 'dg-b', 'AR');
  svg +=
    line(56, 118, 312, 118) +
    line(56, 114, 56, 122) +
    line(312, 114, 312, 122) +
    label(184, 132, 'one step', 'dg-s', 'middle') +
    label(4, 152, 'Backward overlaps the gradient all-reduce (AR), bucket', 'dg-s') +
    label(4, 166, 'by bucket; the optimizer waits for the last one. Workers', 'dg-s') +
    label(4, 180, 'prepare the next batch meanwhile.', 'dg-s');
  return svg;
}

/** One data-parallel training step as a timeline shows it. */
export const trainingStep: DiagramDef = {
  name: 'training-step',
  title: 'The timeline of one data-parallel training step',
  desc:
    'Four rows over one step. Data: loader workers on the CPU prepare the next batch during the step. Copy: the ' +
    'batch goes from host to device (H2D). Compute: the forward pass, then the backward pass, then the optimizer ' +
    'step. NCCL: gradient all-reduces run bucket by bucket while the backward pass is still computing, and the ' +
    'optimizer starts only after the last all-reduce ends.',
  caption: 'One training step as Nsight Systems draws it: copies, compute and communication on their own rows.',
  height: 188,
  svg: stepSvg(),
};

function servingSvg(): string {
  return (
    box(4, 8, 92, 36, ['Client', 'sends prompt']) +
    arrow(96, 26, 112, 26) +
    box(112, 8, 96, 36, ['HTTP server', 'tokenizer']) +
    arrow(208, 26, 224, 26) +
    box(224, 8, 92, 36, ['Queue', 'scheduler']) +
    arrow(270, 44, 270, 60) +
    box(224, 60, 92, 36, ['Prefill', 'whole prompt'], 'dg-hi') +
    arrow(224, 78, 208, 78) +
    box(112, 60, 96, 36, ['Decode', 'a token a step'], 'dg-hi') +
    `<path d="M140 96 q20 14 40 0" class="dg-line"/>` +
    label(160, 118, 'batched with other requests', 'dg-s', 'middle') +
    arrow(112, 78, 96, 78) +
    box(4, 60, 92, 36, ['Stream', 'tokens back']) +
    // The two clocks a user feels.
    line(4, 140, 312, 140) +
    `<rect x="4" y="132" width="120" height="16" class="dg-a"/>` +
    label(64, 144, 'TTFT', 'dg-on', 'middle') +
    [0, 1, 2, 3, 4, 5].map((i) => `<rect x="${130 + i * 30}" y="134" width="4" height="12" class="dg-b"/>`).join('') +
    label(4, 166, 'TTFT: queue, prefill and network until the first token.', 'dg-s') +
    label(4, 180, 'Then one token per decode step: the gaps are ITL, their', 'dg-s') +
    label(4, 194, 'mean after the first token is TPOT.', 'dg-s')
  );
}

/** An LLM request's path through a server. */
export const servingPath: DiagramDef = {
  name: 'serving-path',
  title: 'The path of an LLM request through a server',
  desc:
    'A client sends a prompt to the HTTP server, which tokenizes it and hands it to the queue and scheduler. The ' +
    'prefill step processes the whole prompt and yields the first token; decode steps then produce one token each, ' +
    'batched with other requests, and each token streams back to the client. Time to first token (TTFT) covers ' +
    'queueing, prefill and the network until the first token; each later gap is the inter-token latency (ITL), and ' +
    'their mean after the first token is the time per output token (TPOT).',
  caption: 'A request’s path: TTFT is the wait for the first token, TPOT the pace after it.',
  height: 200,
  svg: servingSvg(),
};
