/**
 * All-reduce and a straggler: every rank's step ends when the slowest rank reaches the collective; the others wait
 * inside a running NCCL kernel, so their GPU-Util still reads near 100% (gpu-facts 4.20;
 * content/cards/training/distributed-overlap-and-stragglers.md).
 */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Step time and each kind of rank's time inside NCCL (waiting plus the transfer itself), ms. */
export function stragglerStep(computeMs: number, slowComputeMs: number, transferMs: number) {
  const slowest = Math.max(computeMs, slowComputeMs);
  const waitMs = slowest - computeMs;
  const stepMs = slowest + transferMs;
  return {
    stepMs,
    waitMs,
    waitShare: waitMs / stepMs,
    ncclMsOthers: waitMs + transferMs,
    ncclMsSlow: slowest - slowComputeMs + transferMs,
  };
}

export const figure: FigureDef = {
  name: 'straggler',
  caption: 'All-reduce and a straggler: the slowest rank sets every rank’s step time',
  controls: [
    { kind: 'range', id: 'ranks', label: 'Ranks', unit: 'GPUs', min: 2, max: 64, step: 1, value: 8 },
    {
      kind: 'range',
      id: 'computeMs',
      label: 'Compute per step, other ranks',
      unit: 'ms',
      min: 10,
      max: 1000,
      step: 10,
      value: 400,
    },
    {
      kind: 'range',
      id: 'slowMs',
      label: 'Compute per step, slow rank',
      unit: 'ms',
      min: 10,
      max: 1000,
      step: 10,
      value: 520,
    },
    { kind: 'range', id: 'transferMs', label: 'All-reduce transfer', unit: 'ms', min: 0, max: 200, step: 5, value: 0 },
  ],
  view(v: Values) {
    const ranks = Number(v['ranks']);
    const computeMs = Number(v['computeMs']);
    const slowMs = Number(v['slowMs']);
    const transferMs = Number(v['transferMs']);
    const r = stragglerStep(computeMs, slowMs, transferMs);
    const shown = Math.min(ranks, 4);
    const x0 = 76;
    const w = 236;
    const sx = w / r.stepMs;
    const rowH = 16;
    let svg = text(x0, 12, `one step: ${fmt(r.stepMs)} ms`, 'fig-t fig-s');
    for (let i = 0; i < shown; i++) {
      const y = 18 + i * (rowH + 6);
      const c = i === 0 ? slowMs : computeMs;
      const wait = r.stepMs - transferMs - c;
      svg +=
        text(4, y + 13, i === 0 && slowMs > computeMs ? 'rank 0 (slow)' : `rank ${i}`, 'fig-t fig-s') +
        rect(x0, y, c * sx, rowH, 'fig-a') +
        rect(x0 + c * sx, y, wait * sx, rowH, 'fig-c') +
        rect(x0 + (c + wait) * sx, y, transferMs * sx, rowH, 'fig-track');
    }
    const legendY = 18 + shown * (rowH + 6) + 12;
    svg +=
      (ranks > shown ? text(4, legendY - 4, `… ${fmt(ranks - shown)} more like rank 1`, 'fig-t fig-s') : '') +
      rect(4, legendY + 4, 10, 10, 'fig-a') +
      text(18, legendY + 13, 'compute', 'fig-t fig-s') +
      rect(80, legendY + 4, 10, 10, 'fig-c') +
      text(94, legendY + 13, 'waiting in NCCL', 'fig-t fig-s') +
      rect(196, legendY + 4, 10, 10, 'fig-track') +
      text(210, legendY + 13, 'transfer', 'fig-t fig-s') +
      text(4, legendY + 34, 'GPU-Util on every rank: about 100%', 'fig-t');
    const slowWait = r.stepMs - transferMs - slowMs;
    const two = ranks === 2;
    const all = two ? 'both' : `all ${fmt(ranks)}`;
    const readout =
      r.waitMs > 0
        ? `${fmt(ranks - 1)} ${two ? 'rank waits' : 'ranks wait'} ${fmt(r.waitMs)} ms of every ${fmt(r.stepMs)} ms step (${pct(r.waitShare)}) for the slow rank, yet ${all} read GPU-Util near 100%: the waiting runs inside an NCCL kernel.`
        : slowWait > 0
          ? `Rank 0 is the fast one: it waits ${fmt(slowWait)} ms of every ${fmt(r.stepMs)} ms step for the others, and still reads GPU-Util near 100%.`
          : `No rank waits: a step takes ${fmt(r.stepMs)} ms on ${all}, and GPU-Util reads near 100% on each.`;
    return { svg, readout };
  },
};
