/**
 * One rank's events as HTA's analyses see them (hta/common/trace.py, trace_parser.py, trace_filter.py):
 *
 * - nanosecond-resolution timestamps rounded inward (start up, end down), as `round_down_time_stamps`;
 * - a GPU event is one with `stream ≥ 0` and `correlation ≥ 0`, or named "Event Sync" / "Context Sync";
 *   every other event is a CPU event;
 * - each GPU event is linked to the CPU event with the same correlation (the last one in file order, as
 *   pandas' merge then assignment leaves it);
 * - when the traces hold two or more `ProfilerStep#N` names, the last step is dropped: CPU events that start
 *   at or after the last step's start go, and GPU events go unless a kept CPU event has their correlation
 *   (`_filter_irrelevant_gpu_kernels`).
 */
import { kernelType, profilerStepNumber, type KernelType } from './kernel-type.ts';
import { corrSlots, type CorrSlots } from './corr-index.ts';
import { mergeRows, sortByStart, type Merged } from './intervals.ts';
import type { ParsedTrace } from './parse.ts';

/** The view the analyses read. Arrays are indexed by row of the event table. */
export interface RankView {
  trace: ParsedTrace;
  /** Start and end after HTA's rounding, microseconds. */
  tsUs: Float64Array;
  endUs: Float64Array;
  /** 1 when the row is a GPU event in HTA's sense. */
  isGpu: Uint8Array;
  /** 1 when the row survives the last-step filter. */
  kept: Uint8Array;
  /** Row of the linked CPU event (launch), or -1. */
  launchRow: Int32Array;
  /** Kernel class of each string id, computed on first use. */
  typeOf(nameId: number): KernelType;
  /** Whether HTA dropped the last profiler step. */
  droppedLastStep: boolean;
  /** Every row, by start then file order: the analyses filter it, so their rows come sorted. */
  order: Int32Array;
  /** Each row's correlation id as a slot: the analyses' maps and sets by correlation are arrays by slot. */
  corr: CorrSlots;
}

/** Names of `ProfilerStep#N` events in a trace. */
export function stepNames(trace: ParsedTrace): Set<string> {
  const out = new Set<string>();
  const { strings, name, count } = trace.events;
  const isStep = Uint8Array.from(strings, (s) => (profilerStepNumber(s) !== null ? 1 : 0));
  for (let i = 0; i < count; i++) if (isStep[name[i]!]) out.add(strings[name[i]!]!);
  return out;
}

/**
 * Builds the view. `distinctStepNames` is the number of distinct `ProfilerStep#N` names across all the
 * ranks loaded together (HTA counts them in its global symbol table).
 */
export function buildView(trace: ParsedTrace, distinctStepNames: number): RankView {
  const ev = trace.events;
  const n = ev.count;
  const tsUs = new Float64Array(n);
  const endUs = new Float64Array(n);
  const round = trace.meta.resolution === 'ns';
  // -1 when absent: no row's name is -1.
  const eventSync = ev.strings.indexOf('Event Sync');
  const contextSync = ev.strings.indexOf('Context Sync');
  const isGpu = new Uint8Array(n);
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = ev.tsUs[i]!;
    const e = s + ev.durUs[i]!;
    tsUs[i] = round ? Math.ceil(s) : s;
    endUs[i] = round ? Math.floor(e) : e;
    const id = ev.name[i]!;
    isGpu[i] = (ev.stream[i]! >= 0 && ev.corr[i]! >= 0) || id === eventSync || id === contextSync ? 1 : 0;
    all[i] = i;
  }

  // Link GPU events to their CPU launch by correlation.
  const corr = corrSlots(ev.corr);
  const { slot } = corr;
  const cpuBySlot = new Int32Array(corr.size).fill(-1);
  for (let i = 0; i < n; i++) if (!isGpu[i] && ev.corr[i] !== -1) cpuBySlot[slot[i]!] = i;
  const launchRow = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (isGpu[i] && ev.corr[i] !== -1) launchRow[i] = cpuBySlot[slot[i]!]!;

  const kept = new Uint8Array(n).fill(1);
  const droppedLastStep = distinctStepNames >= 2 && dropLastStep(trace, tsUs, isGpu, kept, corr);

  const types: (KernelType | undefined)[] = new Array(ev.strings.length);
  const typeOf = (id: number): KernelType => (types[id] ??= kernelType(ev.strings[id] ?? ''));
  const order = sortByStart(all, tsUs);
  return { trace, tsUs, endUs, isGpu, kept, launchRow, typeOf, droppedLastStep, order, corr };
}

function dropLastStep(
  trace: ParsedTrace,
  tsUs: Float64Array,
  isGpu: Uint8Array,
  kept: Uint8Array,
  corr: CorrSlots,
): boolean {
  const ev = trace.events;
  const n = ev.count;
  const isStep = new Uint8Array(ev.strings.length);
  ev.strings.forEach((s, id) => {
    if (profilerStepNumber(s) !== null) isStep[id] = 1;
  });
  let anyCpu = false;
  let lastStepStart = -Infinity;
  let firstCpu = Infinity;
  for (let i = 0; i < n; i++) {
    if (isGpu[i]) continue;
    anyCpu = true;
    if (tsUs[i]! < firstCpu) firstCpu = tsUs[i]!;
    if (isStep[ev.name[i]!] && tsUs[i]! > lastStepStart) lastStepStart = tsUs[i]!;
  }
  if (!anyCpu) return false;
  const cut = lastStepStart === -Infinity ? firstCpu : lastStepStart;
  // Correlations of the kept CPU events, by slot.
  const keptCorr = new Uint8Array(corr.size);
  const { slot } = corr;
  for (let i = 0; i < n; i++) {
    if (isGpu[i]) continue;
    if (tsUs[i]! < cut) keptCorr[slot[i]!] = 1;
    else kept[i] = 0;
  }
  for (let i = 0; i < n; i++) if (isGpu[i] && !keptCorr[slot[i]!]) kept[i] = 0;
  return true;
}

const streamRowsOf = new WeakMap<RankView, Int32Array>();

/**
 * Kept rows with `stream ≠ -1`, by start: what HTA's temporal, kernel and overlap analyses read as GPU kernels.
 * Computed once per view (several analyses read it); callers must not change it.
 */
export function streamRows(v: RankView): Int32Array {
  let rows = streamRowsOf.get(v);
  if (rows === undefined) {
    const { stream } = v.trace.events;
    const { order, kept } = v;
    const out = new Int32Array(order.length);
    let m = 0;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      if (kept[i] && stream[i] !== -1) out[m++] = i;
    }
    rows = out.slice(0, m);
    streamRowsOf.set(v, rows);
  }
  return rows;
}

/** The kernel classes HTA's breakdowns read, in the order of their sweep's bits. */
export const CLASSES: readonly KernelType[] = ['COMPUTATION', 'COMMUNICATION', 'MEMORY'];

const classesOf = new WeakMap<RankView, Map<KernelType, Merged>>();

/**
 * Each class's kernels (`streamRows`) merged into intervals, in `CLASSES` order. Computed once per view (the
 * temporal and kernel breakdowns both read it); callers must not change it.
 */
export function mergedByClass(v: RankView): Map<KernelType, Merged> {
  let out = classesOf.get(v);
  if (out === undefined) {
    const rows = streamRows(v);
    const name = v.trace.events.name;
    const lists = CLASSES.map(() => new Int32Array(rows.length));
    const counts = CLASSES.map(() => 0);
    for (let k = 0; k < rows.length; k++) {
      const c = CLASSES.indexOf(v.typeOf(name[rows[k]!]!));
      if (c >= 0) lists[c]![counts[c]!++] = rows[k]!;
    }
    out = new Map(CLASSES.map((t, c) => [t, mergeRows(lists[c]!.subarray(0, counts[c]!), v.tsUs, v.endUs)]));
    classesOf.set(v, out);
  }
  return out;
}
