/**
 * HTA's kernel breakdown and communication–computation overlap (breakdown_analysis.py
 * `get_gpu_kernel_breakdown`, communication_analysis.py `get_comm_comp_overlap`). Each class's kernels are
 * merged into intervals first, so time two kernels of one class share counts once; time where classes
 * overlap is its own row ("COMPUTATION overlapping COMMUNICATION"), as HTA's sweep labels it.
 */
import type { KernelType } from './kernel-type.ts';
import { mergeRows, overlapUs, unionUs, type Merged } from './intervals.ts';
import { pct } from './temporal.ts';
import { streamRows, type RankView } from './view.ts';

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

const CLASSES: KernelType[] = ['COMPUTATION', 'COMMUNICATION', 'MEMORY'];

/** Kernel classes, top kernels and overlap for one rank. */
export function kernelBreakdown(v: RankView, topN = 10): KernelBreakdown {
  const rows = streamRows(v);
  const name = v.trace.events.name;
  const merged = new Map<KernelType, Merged>();
  for (const t of CLASSES)
    merged.set(
      t,
      mergeRows(
        rows.filter((r) => v.typeOf(name[r]!) === t),
        v.tsUs,
        v.endUs,
      ),
    );
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

/** HTA's running-status sweep over the classes' merged intervals: time per combination of classes. */
function sweep(merged: Map<KernelType, Merged>): TypeTime[] {
  const points: { t: number; d: number }[] = [];
  CLASSES.forEach((c, k) => {
    const m = merged.get(c)!;
    for (let i = 0; i < m.count; i++) points.push({ t: m.start[i]!, d: 1 << k }, { t: m.end[i]!, d: -(1 << k) });
  });
  points.sort((a, b) => a.t - b.t);
  const time = new Map<number, number>();
  let running = 0;
  for (let i = 0; i < points.length; i++) {
    running += points[i]!.d;
    const next = points[i + 1];
    if (running > 0 && next) time.set(running, (time.get(running) ?? 0) + next.t - points[i]!.t);
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
