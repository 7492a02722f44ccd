/**
 * HTA's kernel breakdown and communication–computation overlap (breakdown_analysis.py
 * `get_gpu_kernel_breakdown`, communication_analysis.py `get_comm_comp_overlap`). Each class's kernels are
 * merged into intervals first, so time two kernels of one class share counts once; time where classes
 * overlap is its own row ("COMPUTATION overlapping COMMUNICATION"), as HTA's sweep labels it.
 */
import type { KernelType } from './kernel-type.ts';
import { overlapUs, unionUs, type Merged } from './intervals.ts';
import { pct } from './temporal.ts';
import { CLASSES, mergedByClass, streamRows, type RankView } from './view.ts';

/** Time per class, and per overlap of classes. */
export interface TypeTime {
  label: string;
  us: number;
  pct: number;
}

/** One kernel name's statistics. */
export interface KernelStat {
  name: string;
  type: KernelType;
  count: number;
  sumUs: number;
  meanUs: number;
  minUs: number;
  maxUs: number;
}

/** The breakdown. */
export interface KernelBreakdown {
  byType: TypeTime[];
  /** Top kernels by total time, all classes. */
  top: KernelStat[];
  kernelCount: number;
  /** Overlapped share of communication time, percent (HTA's `comp_comm_overlap_pctg`); null without NCCL. */
  commOverlapPct: number | null;
  /** Merged communication time, µs. */
  commUs: number;
}

/** Kernel classes, top kernels and overlap for one rank. */
export function kernelBreakdown(v: RankView, topN = 10): KernelBreakdown {
  const rows = streamRows(v);
  const name = v.trace.events.name;
  const merged = mergedByClass(v);
  const byType = sweep(merged);
  const stats = new Map<number, KernelStat>();
  for (const r of rows) {
    const id = name[r]!;
    const d = v.endUs[r]! - v.tsUs[r]!;
    let s = stats.get(id);
    if (!s) {
      s = { name: v.trace.events.strings[id]!, type: v.typeOf(id), count: 0, sumUs: 0, meanUs: 0, minUs: d, maxUs: d };
      stats.set(id, s);
    }
    s.count++;
    s.sumUs += d;
    if (d < s.minUs) s.minUs = d;
    if (d > s.maxUs) s.maxUs = d;
  }
  const top = [...stats.values()]
    .map((s) => ({ ...s, meanUs: s.sumUs / s.count }))
    .sort((a, b) => b.sumUs - a.sumUs)
    .slice(0, topN);
  const comm = merged.get('COMMUNICATION')!;
  const commUs = unionUs(comm);
  const commOverlapPct = commUs > 0 ? pct(overlapUs(comm, merged.get('COMPUTATION')!), commUs) : null;
  return { byType, top, kernelCount: rows.length, commOverlapPct, commUs };
}

/**
 * HTA's running-status sweep over the classes' merged intervals: time per combination of classes. Each class's
 * points (start, end, start, …) are already in time order, so they are merged rather than sorted; on equal
 * times the lower class goes first, the order of a stable sort of the classes' points one after another.
 */
function sweep(merged: Map<KernelType, Merged>): TypeTime[] {
  const classes = CLASSES.map((c) => merged.get(c)!);
  const next = classes.map(() => 0);
  /** Time of class k's point j: start of interval j/2, or its end. */
  const at = (k: number, j: number) => (j & 1 ? classes[k]!.end[j >> 1]! : classes[k]!.start[j >> 1]!);
  const time = new Map<number, number>();
  let running = 0;
  let prev = 0;
  for (;;) {
    let k = -1;
    let t = Infinity;
    for (let c = 0; c < classes.length; c++)
      if (next[c]! < 2 * classes[c]!.count && (k < 0 || at(c, next[c]!) < t)) {
        k = c;
        t = at(c, next[c]!);
      }
    if (k < 0) break;
    if (running > 0) time.set(running, (time.get(running) ?? 0) + t - prev);
    running += next[k]! & 1 ? -(1 << k) : 1 << k;
    next[k]!++;
    prev = t;
  }
  const total = [...time.values()].reduce((a, b) => a + b, 0);
  return [...time.entries()]
    .map(([mask, us]) => ({
      label: CLASSES.filter((_, k) => mask & (1 << k)).join(' overlapping '),
      us,
      pct: total > 0 ? Math.round((1000 * us) / total) / 10 : 0,
    }))
    .sort((a, b) => b.us - a.us);
}
