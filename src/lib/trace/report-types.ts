/** The shapes a trace analysis returns, shared by the analysis, the verdict, the CLI and the page. */
import type { HostWaitCauses } from './causes.ts';
import type { IdleCategory, StreamIdle } from './idle.ts';
import type { KernelBreakdown } from './kernels.ts';
import type { LaunchStats } from './launch.ts';
import type { TraceMeta } from './parse.ts';
import type { StepStat } from './steps.ts';
import type { Temporal } from './temporal.ts';

/** The accelerator family the trace came from, by its runtime calls. */
export type Platform = 'cuda' | 'rocm' | 'other';

/** Everything read from one rank's trace. */
export interface RankReport {
  /** `distributedInfo.rank`, or the position given to a trace without one; null for a single trace without it. */
  rank: number | null;
  /** The file's name. */
  label: string;
  meta: TraceMeta;
  platform: Platform;
  /** What the reader should know about how this trace was read. */
  notes: string[];
  temporal: Temporal;
  idle: { streams: StreamIdle[]; totals: Record<IdleCategory, { us: number; ratio: number }> };
  kernels: KernelBreakdown;
  launch: LaunchStats | null;
  steps: StepStat[];
  host: HostWaitCauses;
}

/** One rank in the comparison across ranks. */
export interface RankLine {
  rank: number;
  /** Mean `ProfilerStep` time, or the GPU span when there are no steps, µs. */
  stepMeanUs: number;
  /** Merged NCCL (communication kernel) time, µs, and its share of the rank's GPU span. */
  ncclUs: number;
  ncclPct: number;
  /** Merged computation-kernel time, µs: the work that makes the other ranks wait. */
  computeUs: number;
}

/** Across ranks: who is slowest and what the others wait. */
export interface RanksSummary {
  perRank: RankLine[];
  /** The rank with the most computation time: in a synchronous job every other rank waits for it in NCCL. */
  slowestRank: number;
  /** Its computation time over the median rank's. */
  slowestByRatio: number;
  medianComputeUs: number;
  /** True when `stepMeanUs` is `ProfilerStep` time, false when it is the GPU span. */
  byStep: boolean;
}
