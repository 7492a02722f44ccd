/**
 * HTA's idle time per stream (breakdown_analysis.py `_analyze_idle_time_for_stream`). On each stream,
 * kernels and memory copies in start order; the gap before each is
 * - host wait when its launch (the CPU runtime call) started after the previous kernel ended: the CPU was
 *   not enqueuing work fast enough;
 * - kernel wait when it is shorter than 30 µs (`consecutive_kernel_delay`) and not host wait: the cost of
 *   launching back-to-back kernels;
 * - other, the rest.
 * Gaps are summed as HTA sums them, negative ones (overlapping events on one stream) included.
 */
import { sortByStart } from './intervals.ts';
import type { RankView } from './view.ts';

/** The categories, HTA's names. */
export type IdleCategory = 'host_wait' | 'kernel_wait' | 'other';

/** One stream's idle time. */
export interface StreamIdle {
  stream: number;
  idleUs: number;
  /** Microseconds and share of the stream's idle time per category. */
  byCategory: Record<IdleCategory, { us: number; ratio: number }>;
  kernels: number;
}

/** One host-wait gap: the GPU stream idle from `fromUs` until `toUs` while the host had not launched. */
export interface HostGap {
  stream: number;
  fromUs: number;
  toUs: number;
  /** The launching CPU event's row. */
  launchRow: number;
}

/** HTA's default `consecutive_kernel_delay`, microseconds. */
export const CONSECUTIVE_KERNEL_DELAY_US = 30;

const KERNEL_CATS = new Set(['kernel', 'Kernel', 'gpu_memset', 'Memset', 'gpu_memcpy', 'Memcpy', 'mtia_ccp_events']);

/** Idle time per stream, sorted by stream, and the host-wait gaps for attribution. */
export function idleBreakdown(v: RankView): { streams: StreamIdle[]; hostGaps: HostGap[] } {
  const ev = v.trace.events;
  const isKernelCat = Uint8Array.from(ev.strings, (s) => (KERNEL_CATS.has(s) ? 1 : 0));
  // A trace has a handful of streams: a short list beats a Map keyed by doubles.
  const keys: number[] = [];
  const lists: number[][] = [];
  const { order, kept } = v;
  for (let o = 0; o < order.length; o++) {
    const i = order[o]!;
    if (!kept[i] || ev.stream[i] === -1 || !isKernelCat[ev.cat[i]!]) continue;
    const s = ev.stream[i]!;
    let k = keys.indexOf(s);
    if (k < 0) {
      k = keys.push(s) - 1;
      lists.push([]);
    }
    lists[k]!.push(i);
  }
  const byStream = new Map(keys.map((s, k) => [s, lists[k]!]));
  const streams: StreamIdle[] = [];
  const hostGaps: HostGap[] = [];
  for (const stream of [...byStream.keys()].sort((a, b) => a - b)) {
    const rows = sortByStart(Int32Array.from(byStream.get(stream)!), v.tsUs);
    const sums: Record<IdleCategory, number> = { host_wait: 0, kernel_wait: 0, other: 0 };
    for (let k = 1; k < rows.length; k++) {
      const r = rows[k]!;
      const prevEnd = v.endUs[rows[k - 1]!]!;
      const gap = v.tsUs[r]! - prevEnd;
      const launch = v.launchRow[r]!;
      const hostWait = launch >= 0 && v.kept[launch] === 1 && v.tsUs[launch]! > prevEnd;
      if (hostWait) {
        sums.host_wait += gap;
        hostGaps.push({ stream, fromUs: prevEnd, toUs: v.tsUs[r]!, launchRow: launch });
      } else if (gap < CONSECUTIVE_KERNEL_DELAY_US) sums.kernel_wait += gap;
      else sums.other += gap;
    }
    const total = sums.host_wait + sums.kernel_wait + sums.other;
    const entry = (us: number) => ({ us, ratio: total !== 0 ? us / total : 0 });
    streams.push({
      stream,
      idleUs: total,
      kernels: rows.length,
      byCategory: { host_wait: entry(sums.host_wait), kernel_wait: entry(sums.kernel_wait), other: entry(sums.other) },
    });
  }
  return { streams, hostGaps };
}

/** The rank's idle categories summed over its streams, as shares of their total. */
export function idleTotals(streams: readonly StreamIdle[]): Record<IdleCategory, { us: number; ratio: number }> {
  const sums = { host_wait: 0, kernel_wait: 0, other: 0 };
  for (const s of streams) for (const k of Object.keys(sums) as IdleCategory[]) sums[k] += s.byCategory[k].us;
  const total = sums.host_wait + sums.kernel_wait + sums.other;
  const entry = (us: number) => ({ us, ratio: total !== 0 ? us / total : 0 });
  return { host_wait: entry(sums.host_wait), kernel_wait: entry(sums.kernel_wait), other: entry(sums.other) };
}
