/**
 * Beyond HTA: what the host was doing while a GPU stream waited for it (HTA's "host wait"). Each moment
 * of host wait (merged over streams, so a moment counts once) is given to what ran on a launching thread at
 * that moment, in this order:
 * 1. a sync: `aten::item`, `aten::_local_scalar_dense`, `cudaStreamSynchronize`, `cudaDeviceSynchronize`,
 *    `cudaEventSynchronize`, a blocking `cudaMemcpy`, or an `aten::to` / `aten::_to_copy` / `aten::copy_`
 *    that contains one (`.cpu()`, `.tolist()`, `.item()`);
 * 2. the DataLoader's `__next__` (data starvation);
 * 3. the optimizer step (`Optimizer.step#…`, `Optimizer.zero_grad#…`);
 * 4. the rest: Python and dispatch overhead between launches.
 */
import { coveredUs, mergePairs, mergeRows, subtract, unionUs, type Merged } from './intervals.ts';
import type { HostGap } from './idle.ts';
import type { RankView } from './view.ts';

/** Where host wait went. */
export type HostCause = 'sync' | 'dataLoader' | 'optimizer' | 'overhead';

/** The attribution for one rank. */
export interface HostWaitCauses {
  /** Host wait merged over streams, µs. */
  hostWaitUs: number;
  /** µs of host wait per cause (they add up to `hostWaitUs`). */
  byCause: Record<HostCause, number>;
  /** Runtime sync calls (stream, device, event syncs and blocking copies) and the time in them, µs. */
  syncCalls: number;
  syncUs: number;
  /** Time in the DataLoader's `__next__`, µs. */
  dataLoaderUs: number;
  /** Time in the optimizer step, µs. */
  optimizerUs: number;
}

const SYNC_CALLS = new Set([
  'cudaStreamSynchronize',
  'cudaDeviceSynchronize',
  'cudaEventSynchronize',
  'cudaMemcpy',
  'hipStreamSynchronize',
  'hipDeviceSynchronize',
  'hipEventSynchronize',
  'hipMemcpy',
]);
const SYNC_OPS = new Set(['aten::item', 'aten::_local_scalar_dense']);
const COPY_OPS = new Set(['aten::to', 'aten::_to_copy', 'aten::copy_']);
const DATALOADER = /DataLoader.*__next__|^enumerate\(DataLoader\)/;
const OPTIMIZER = /^Optimizer\.(?:step|zero_grad)#/;

/** What kind of host activity a CPU event name is, for the attribution. */
export function hostKind(name: string): 'syncCall' | 'syncOp' | 'copy' | 'dataLoader' | 'optimizer' | null {
  if (SYNC_CALLS.has(name)) return 'syncCall';
  if (SYNC_OPS.has(name)) return 'syncOp';
  if (COPY_OPS.has(name)) return 'copy';
  if (DATALOADER.test(name)) return 'dataLoader';
  if (OPTIMIZER.test(name)) return 'optimizer';
  return null;
}

/** Attributes the rank's host-wait gaps to causes on the launching threads. */
export function hostWaitCauses(v: RankView, gaps: readonly HostGap[]): HostWaitCauses {
  const ev = v.trace.events;
  const launchTids = new Set(gaps.map((g) => ev.tid[g.launchRow]!));
  const kinds = new Map<number, ReturnType<typeof hostKind>>();
  const kindOf = (id: number) => {
    if (!kinds.has(id)) kinds.set(id, hostKind(ev.strings[id]!));
    return kinds.get(id)!;
  };
  const rows: Record<'syncCall' | 'syncOp' | 'copy' | 'dataLoader' | 'optimizer', number[]> = {
    syncCall: [],
    syncOp: [],
    copy: [],
    dataLoader: [],
    optimizer: [],
  };
  let syncCalls = 0;
  let syncUs = 0;
  for (let i = 0; i < ev.count; i++) {
    if (v.isGpu[i]) continue;
    const k = kindOf(ev.name[i]!);
    if (k === null) continue;
    if (k === 'syncCall') {
      syncCalls++;
      syncUs += v.endUs[i]! - v.tsUs[i]!;
    }
    if (launchTids.size === 0 || launchTids.has(ev.tid[i]!)) rows[k].push(i);
  }
  const merge = (r: number[]) => mergeRows(Int32Array.from(r), v.tsUs, v.endUs);
  const calls = merge(rows.syncCall);
  // A copy is a sync copy when a sync call runs inside it.
  const syncCopies = rows.copy.filter((r) => coveredUs(calls, v.tsUs[r]!, v.endUs[r]!) > 0);
  const sync = merge([...rows.syncCall, ...rows.syncOp, ...syncCopies]);
  const dataLoader = merge(rows.dataLoader);
  const optimizer = merge(rows.optimizer);

  const wait = mergePairs(
    gaps.map((g) => g.fromUs),
    gaps.map((g) => g.toUs),
  );
  const hostWaitUs = unionUs(wait);
  let rest: Merged = wait;
  const take = (m: Merged): number => {
    const left = subtract(rest, m);
    const us = unionUs(rest) - unionUs(left);
    rest = left;
    return us;
  };
  const byCause = { sync: take(sync), dataLoader: take(dataLoader), optimizer: take(optimizer), overhead: 0 };
  byCause.overhead = unionUs(rest);
  return {
    hostWaitUs,
    byCause,
    syncCalls,
    syncUs,
    dataLoaderUs: unionUs(dataLoader),
    optimizerUs: unionUs(optimizer),
  };
}
