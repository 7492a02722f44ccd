/**
 * Sampling and averaging: one periodic stall read by tools with different windows (gpu-facts 1.2, 2.11, 8.6;
 * content/cards/meters/sampling-periods-and-averaging.md). The GPU is busy except for `stallS` at the end of each
 * `periodS`; NVML's window is taken as 1 s.
 */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Busy seconds in [0, t): (period − stall) per whole period, plus the busy part of the last one. */
function busyUntil(t: number, stallS: number, periodS: number): number {
  const busyPerPeriod = periodS - Math.min(stallS, periodS);
  return Math.floor(t / periodS) * busyPerPeriod + Math.min(t % periodS, busyPerPeriod);
}

/**
 * Share of [t0, t1) with a kernel running (what an average over that window reports).
 * @example busyShare(0, 300, 8, 60) // 0.8666666666666667
 */
export function busyShare(t0: number, t1: number, stallS: number, periodS: number): number {
  return (busyUntil(t1, stallS, periodS) - busyUntil(t0, stallS, periodS)) / (t1 - t0);
}

/** Point reads every `pollS` seconds over `horizonS`, each the last 1 s window (as `nvidia-smi -l` gives). */
export function pointReads(pollS: number, horizonS: number, stallS: number, periodS: number): number[] {
  const reads: number[] = [];
  for (let t = pollS; t <= horizonS; t += pollS) reads.push(busyShare(t - 1, t, stallS, periodS));
  return reads;
}

const HORIZON_S = 180;

export const figure: FigureDef = {
  name: 'sampling',
  caption: 'Sampling and averaging: one stall pattern, three ways to read it, over 3 minutes',
  controls: [
    { kind: 'range', id: 'stallS', label: 'Stall length', unit: 's', min: 0, max: 60, step: 1, value: 8 },
    { kind: 'range', id: 'periodS', label: 'One stall every', unit: 's', min: 10, max: 300, step: 5, value: 60 },
    {
      kind: 'range',
      id: 'pollS',
      label: 'Poll period (nvidia-smi -l)',
      unit: 's',
      min: 1,
      max: 60,
      step: 1,
      value: 10,
    },
    { kind: 'range', id: 'avgS', label: 'Dashboard average', unit: 's', min: 30, max: 900, step: 30, value: 300 },
  ],
  view(v: Values) {
    const stallS = Math.min(Number(v['stallS']), Number(v['periodS']));
    const periodS = Number(v['periodS']);
    const pollS = Number(v['pollS']);
    const avgS = Number(v['avgS']);
    const x0 = 8;
    const w = 304;
    const sx = w / HORIZON_S;
    const row = (top: number, share: number) => top + 36 * (1 - share);
    const dmon: string[] = [];
    for (let s = 0; s < HORIZON_S; s++) {
      const y = row(22, busyShare(s, s + 1, stallS, periodS)).toFixed(1);
      dmon.push(`${x0 + s * sx},${y} ${x0 + (s + 1) * sx},${y}`);
    }
    const reads = pointReads(pollS, HORIZON_S, stallS, periodS);
    const dots = reads
      .map((r, i) => `<circle class="fig-dot" cx="${x0 + (i + 1) * pollS * sx}" cy="${row(82, r).toFixed(1)}" r="3"/>`)
      .join('');
    const avg = busyShare(0, avgS, stallS, periodS);
    const svg =
      text(x0, 16, 'dmon -d 1: one row per second') +
      rect(x0, 22, w, 36, 'fig-track') +
      `<polyline class="fig-line" points="${dmon.join(' ')}"/>` +
      text(x0, 76, `nvidia-smi -l ${fmt(pollS)}: point reads`) +
      rect(x0, 82, w, 36, 'fig-track') +
      dots +
      text(x0, 136, `dashboard, ${fmt(avgS)} s average: ${pct(avg)}`) +
      rect(x0, 142, w, 14, 'fig-track') +
      rect(x0, 142, w * avg, 14, 'fig-b') +
      text(x0, 174, '0 s', 'fig-t fig-s') +
      text(x0 + w, 174, '180 s', 'fig-t fig-s', 'end');
    const zeros = reads.filter((r) => r < 0.5).length;
    const readout =
      stallS === 0
        ? `No stall: every tool reads 100%.`
        : stallS >= periodS
          ? `The stall lasts the whole ${fmt(periodS)} s period, so no kernel ever runs: every tool reads 0%.`
          : `Stalls of ${fmt(stallS)} s every ${fmt(periodS)} s: dmon -d 1 shows each one; ` +
            `nvidia-smi -l ${fmt(pollS)} caught it in ${fmt(zeros)} of ${fmt(reads.length)} reads; ` +
            `a ${fmt(avgS)} s average reads a steady ${pct(avg)}.`;
    return { svg, readout };
  },
};
