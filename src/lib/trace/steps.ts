/**
 * Per-step times from `ProfilerStep#N` (the CPU range torch.profiler's schedule records for each step):
 * each step's length, the GPU's idle share inside it (no GPU event running), and what the host spent in
 * it on the DataLoader and on syncs. Every step is read, the last one too (HTA drops it from its other
 * analyses because its GPU work may be cut off; here its idle share says so when it is).
 */
import { hostKind } from './causes.ts';
import { coveredUs, mergeRows } from './intervals.ts';
import { profilerStepNumber } from './kernel-type.ts';
import type { RankView } from './view.ts';

/** One step. */
export interface StepStat {
  step: number;
  startUs: number;
  durUs: number;
  /** Share of the step's CPU range in which no GPU event ran, percent. */
  gpuIdlePct: number;
  dataLoaderUs: number;
  syncCalls: number;
  syncUs: number;
}

/** The steps in order, or [] when the trace has no `ProfilerStep#N`. */
export function stepStats(v: RankView): StepStat[] {
  const ev = v.trace.events;
  const steps: { row: number; step: number }[] = [];
  const gpu: number[] = [];
  const dl: number[] = [];
  const sync: number[] = [];
  // Per name (string id), read once: a trace has far fewer names than events.
  const stepOf = ev.strings.map((s) => profilerStepNumber(s));
  const kindOf = ev.strings.map((s) => hostKind(s));
  // In start order, so the GPU and DataLoader rows come sorted for `mergeRows` (sorting them again is most of
  // this function's time on a large trace); the steps are put back in file order below.
  for (const i of v.order) {
    const id = ev.name[i]!;
    if (ev.stream[i] !== -1) {
      gpu.push(i);
      continue;
    }
    const s = stepOf[id];
    if (s !== null && s !== undefined) steps.push({ row: i, step: s });
    const k = kindOf[id];
    if (k === 'dataLoader') dl.push(i);
    else if (k === 'syncCall') sync.push(i);
  }
  if (steps.length === 0) return [];
  steps.sort((a, b) => a.row - b.row);
  // A step can be marked twice (a user_annotation and a cpu_op of the same name): keep its longest mark.
  const longest = new Map<number, number>();
  for (const { row, step } of steps) {
    const kept = longest.get(step);
    if (kept === undefined || ev.durUs[row]! > ev.durUs[kept]!) longest.set(step, row);
  }
  steps.splice(0, steps.length, ...[...longest].map(([step, row]) => ({ row, step })));
  const busy = mergeRows(Int32Array.from(gpu), v.tsUs, v.endUs);
  const loader = mergeRows(Int32Array.from(dl), v.tsUs, v.endUs);
  steps.sort((a, b) => v.tsUs[a.row]! - v.tsUs[b.row]!);
  return steps.map(({ row, step }) => {
    const from = v.tsUs[row]!;
    const to = v.endUs[row]!;
    const dur = to - from;
    let calls = 0;
    let us = 0;
    for (const r of sync)
      if (v.tsUs[r]! >= from && v.tsUs[r]! < to) {
        calls++;
        us += v.endUs[r]! - v.tsUs[r]!;
      }
    return {
      step,
      startUs: from,
      durUs: dur,
      gpuIdlePct: dur > 0 ? Math.round((10000 * (dur - coveredUs(busy, from, to))) / dur) / 100 : 0,
      dataLoaderUs: coveredUs(loader, from, to),
      syncCalls: calls,
      syncUs: us,
    };
  });
}
