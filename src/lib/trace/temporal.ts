/**
 * HTA's temporal breakdown (breakdown_analysis.py `get_temporal_breakdown`): over the span from the first
 * GPU event's start to the last one's end, idle is the time no GPU event runs, compute the time a
 * computation kernel runs, and non-compute the rest (communication, memory copies, syncs alone).
 */
import { mergeRows, spanUs, unionUs } from './intervals.ts';
import { mergedByClass, streamRows, type RankView } from './view.ts';

/** Microseconds and percentages (of the span, rounded to 2 decimals as HTA prints them). */
export interface Temporal {
  spanUs: number;
  idleUs: number;
  computeUs: number;
  nonComputeUs: number;
  idlePct: number;
  computePct: number;
  nonComputePct: number;
}

/**
 * HTA's `round(100 * (x / of), 2)`. `toFixed` rounds the exact binary value as Python's `round` does, where
 * `Math.round(10000 * x / of) / 100` can land on the other side of a half (99.69 for HTA's 99.70).
 */
export const pct = (x: number, of: number): number => (of > 0 ? Number((100 * (x / of)).toFixed(2)) : 0);

/** The breakdown, or null when the rank has no GPU events. */
export function temporalBreakdown(v: RankView): Temporal | null {
  const rows = streamRows(v);
  if (rows.length === 0) return null;
  const all = mergeRows(rows, v.tsUs, v.endUs);
  const span = spanUs(all);
  const idle = span - unionUs(all);
  const compute = unionUs(mergedByClass(v).get('COMPUTATION')!);
  const nonCompute = span - compute - idle;
  return {
    spanUs: span,
    idleUs: idle,
    computeUs: compute,
    nonComputeUs: nonCompute,
    idlePct: pct(idle, span),
    computePct: pct(compute, span),
    nonComputePct: pct(nonCompute, span),
  };
}
