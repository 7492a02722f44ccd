/**
 * The analysis of one or more ranks' traces: HTA's analyses per rank (view.ts says how the events are
 * read), the host-wait causes, the comparison across ranks, and one verdict.
 */
import { hostWaitCauses } from './causes.ts';
import { TraceError } from './errors.ts';
import { idleBreakdown, idleTotals } from './idle.ts';
import { kernelBreakdown } from './kernels.ts';
import { launchStats } from './launch.ts';
import type { ParsedTrace } from './parse.ts';
import type { Platform, RankLine, RankReport, RanksSummary } from './report-types.ts';
import { stepStats } from './steps.ts';
import { temporalBreakdown } from './temporal.ts';
import { traceVerdict, type TraceVerdict } from './verdict.ts';
import { buildView, stepNames } from './view.ts';

/** One file to analyse. */
export interface TraceInput {
  label: string;
  trace: ParsedTrace;
}

/** The whole report. */
export interface TraceReport {
  ranks: RankReport[];
  across: RanksSummary | null;
  verdict: TraceVerdict;
  /** About the set of files: missing ranks, files without GPU activity. */
  warnings: string[];
}

/**
 * Analyses the traces, one per rank. Throws `TraceError` with code `no-gpu` when no trace has GPU activity,
 * and `ranks` when two files claim the same rank.
 */
export function analyzeTraces(inputs: readonly TraceInput[]): TraceReport {
  const warnings: string[] = [];
  const ranked = assignRanks(inputs, warnings);
  const names = new Set<string>();
  for (const { trace } of inputs) for (const s of stepNames(trace)) names.add(s);
  const ranks: RankReport[] = [];
  for (const { input, rank } of ranked) {
    const r = analyzeRank(input, rank, names.size);
    if (r) ranks.push(r);
    else if (inputs.length > 1) warnings.push(`${input.label}: no GPU activity; left out of the comparison.`);
  }
  if (ranks.length === 0) {
    const only = inputs.length === 1 ? inputs[0]! : null;
    throw new TraceError(
      'no-gpu',
      `No GPU activity in ${only ? 'this trace' : 'these traces'}: no kernel, memcpy or memset event with a stream. ${
        only ? describeCpuOnly(only.trace) : ''
      }Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] on a machine whose GPU the profiler can see.`,
    );
  }
  const across = acrossRanks(ranks);
  return { ranks, across, verdict: traceVerdict(ranks, across), warnings };
}

function describeCpuOnly(t: ParsedTrace): string {
  return t.meta.keptEvents > 0 ? `It holds ${t.meta.keptEvents} CPU events only. ` : '';
}

function assignRanks(inputs: readonly TraceInput[], warnings: string[]): { input: TraceInput; rank: number | null }[] {
  const seen = new Map<number, string>();
  for (const i of inputs) {
    const r = i.trace.meta.rank;
    if (r === null) continue;
    const other = seen.get(r);
    if (other !== undefined)
      throw new TraceError(
        'ranks',
        `Rank ${r} appears twice: in ${other} and in ${i.label}. Open one trace per rank (the same job's files, one from each process), or each file on its own.`,
      );
    seen.set(r, i.label);
  }
  if (inputs.length === 1) return [{ input: inputs[0]!, rank: inputs[0]!.trace.meta.rank }];
  let next = 0;
  const out = inputs.map((input) => {
    let rank = input.trace.meta.rank;
    if (rank === null) {
      while (seen.has(next)) next++;
      rank = next;
      seen.set(rank, input.label);
      warnings.push(`${input.label} does not say its rank (no distributedInfo.rank): read as rank ${rank}.`);
    }
    return { input, rank };
  });
  const world = Math.max(...inputs.map((i) => i.trace.meta.worldSize ?? 0));
  const missing = Array.from({ length: world }, (_, k) => k).filter((k) => !seen.has(k));
  if (missing.length > 0)
    warnings.push(
      `World size ${world}, but no trace for rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: the comparison covers the ranks loaded.`,
    );
  return out.sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
}

function platformOf(t: ParsedTrace): Platform {
  const s = new Set(t.events.strings);
  if (['hipLaunchKernel', 'hipExtLaunchKernel', 'hipModuleLaunchKernel'].some((n) => s.has(n))) return 'rocm';
  if (['cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel'].some((n) => s.has(n))) return 'cuda';
  return 'other';
}

/** One rank's report, or null when it has no GPU activity. */
export function analyzeRank(input: TraceInput, rank: number | null, distinctStepNames: number): RankReport | null {
  const v = buildView(input.trace, distinctStepNames);
  const temporal = temporalBreakdown(v);
  if (!temporal) return null;
  const { streams, hostGaps } = idleBreakdown(v);
  const platform = platformOf(input.trace);
  const m = input.trace.meta;
  const notes: string[] = [];
  if (m.resolution === 'ns')
    notes.push(
      'Timestamps have nanosecond resolution: each event is rounded inward to whole microseconds (start up, end down), as HTA does.',
    );
  if (v.droppedLastStep)
    notes.push('The last ProfilerStep is left out of the breakdowns, as HTA does: its GPU work may be cut off.');
  else if (distinctStepNames < 2)
    notes.push('Fewer than two ProfilerStep marks: the whole trace is read, as HTA does; steps cannot be compared.');
  if (platform === 'rocm')
    notes.push(
      'An AMD ROCm trace: kernels, copies, streams and launches are read as for CUDA. HTA counts kernels whose names start with "hip" as communication; they are counted so here too, to match it.',
    );
  if (platform === 'other')
    notes.push(
      'No CUDA or HIP launch calls: GPU events are read from their streams, but launch statistics and host-wait causes need the launch calls.',
    );
  return {
    rank,
    label: input.label,
    meta: m,
    platform,
    notes,
    temporal,
    idle: { streams, totals: idleTotals(streams) },
    kernels: kernelBreakdown(v),
    launch: launchStats(v),
    steps: stepStats(v),
    host: hostWaitCauses(v, hostGaps),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
}

function acrossRanks(ranks: RankReport[]): RanksSummary | null {
  if (ranks.length < 2) return null;
  const byStep = ranks.every((r) => r.steps.length > 0);
  const perRank: RankLine[] = ranks.map((r) => ({
    rank: r.rank ?? 0,
    stepMeanUs: byStep ? r.steps.reduce((a, s) => a + s.durUs, 0) / r.steps.length : r.temporal.spanUs,
    ncclUs: r.kernels.commUs,
    ncclPct: r.temporal.spanUs > 0 ? (100 * r.kernels.commUs) / r.temporal.spanUs : 0,
    computeUs: r.temporal.computeUs,
  }));
  const slowest = perRank.reduce((a, b) => (b.computeUs > a.computeUs ? b : a));
  const med = median(perRank.map((p) => p.computeUs));
  return {
    perRank,
    slowestRank: slowest.rank,
    slowestByRatio: med > 0 ? slowest.computeUs / med : 1,
    medianComputeUs: med,
    byStep,
  };
}
