/**
 * One verdict for a set of traces, with the kinds and confidence the labs use (src/lib/diagnose/types.ts), the
 * evidence in numbers, what to change, and the cards that teach it. Order: a straggler across ranks first
 * (every other rank waits for it in NCCL), then the idlest rank's host wait by cause, then its gaps between
 * kernels, then a busy GPU (which a trace cannot judge further: SM activity can).
 *
 * The host-wait causes are decided by the diagnosis engine from the trace's readings (readings.ts,
 * src/lib/diagnose/profile.ts), so counters and traces share one set of rules. A sync-bound loop is filed as
 * `small-kernels` with `cause: 'sync'` (profile.ts says why there is no host-sync kind).
 */
import type { Verdict } from '../diagnose/types.ts';
import { profileVerdict } from '../diagnose/profile.ts';
import type { HostCause } from './causes.ts';
import { traceReadings } from './readings.ts';
import type { RankReport, RanksSummary } from './report-types.ts';

/** The verdict, with what the trace found and every card that teaches the fix. */
export interface TraceVerdict extends Verdict {
  cause: HostCause | 'straggler' | 'kernel-gaps' | 'busy' | 'communication' | 'unplaced';
  /** Rank the verdict is about (null: the only trace had no rank). */
  rank: number | null;
  /** Card ids, the first being `cardId`. */
  cardIds: string[];
}

const f0 = (x: number) => String(Math.round(x));
const f1 = (x: number) => x.toFixed(1);
const ms = (us: number) => (us >= 10_000 ? `${f0(us / 1000)} ms` : `${f1(us / 1000)} ms`);
const pc = (x: number) => `${f0(100 * x)}%`;

/** GPU idle share (percent of the span) below which the GPU counts as busy. */
export const BUSY_IDLE_PCT = 15;
/** How much slower than the median rank the slowest must be to be a straggler. */
export const STRAGGLER_RATIO = 1.15;

/** The verdict over all ranks. */
export function traceVerdict(ranks: readonly RankReport[], across: RanksSummary | null): TraceVerdict {
  if (across && across.slowestByRatio >= STRAGGLER_RATIO) return straggler(across);
  const r = [...ranks].sort((a, b) => b.temporal.idlePct - a.temporal.idlePct)[0]!;
  const t = r.temporal;
  const base = [`GPU idle ${f1(t.idlePct)}% of ${ms(t.spanUs)} (HTA's temporal breakdown${rankText(r)})`];
  if (t.idlePct < BUSY_IDLE_PCT) return busy(r, base);
  const h = r.host;
  const hostShare = t.idleUs > 0 ? Math.min(1, h.hostWaitUs / t.idleUs) : 0;
  // The diagnosis engine decides from the trace's readings (src/lib/diagnose/profile.ts), as it does for
  // counters; the trace adds its own wording, evidence and cards for the cause.
  const pv = profileVerdict(traceReadings(r));
  if (pv) {
    const cause: HostCause =
      pv.cause === 'launch' ? (h.byCause.optimizer > h.byCause.overhead ? 'optimizer' : 'overhead') : pv.cause;
    const us = h.byCause[cause];
    const ev = [
      ...base,
      `host wait ${ms(h.hostWaitUs)} (${pc(hostShare)} of the idle time): the GPU had finished and the next launch had not come`,
      `${causeName(cause)} ${ms(us)} of that host wait (${pc(h.hostWaitUs > 0 ? us / h.hostWaitUs : 0)})`,
    ];
    return { ...byCause(cause, r, ev), kind: pv.kind, confidence: pv.confidence, rank: r.rank };
  }
  const kw = r.idle.totals.kernel_wait.ratio;
  if (kw >= 0.5)
    return {
      kind: 'small-kernels',
      cause: 'kernel-gaps',
      rank: r.rank,
      title: 'Launch-bound: short gaps between many kernels',
      confidence: kw >= 0.7 ? 'high' : 'medium',
      evidence: [...base, `${pc(kw)} of idle time is gaps under 30 µs between kernels`, ...launchText(r)],
      next: 'Fewer, bigger kernels: capture the step with CUDA Graphs or torch.compile(mode="reduce-overhead"), or raise the batch size.',
      cardId: 'launch-overhead-cuda-graphs',
      cardIds: ['launch-overhead-cuda-graphs', 'small-batches-small-kernels', 'torch-compile-fusion'],
    };
  return {
    kind: 'cant-tell',
    cause: 'unplaced',
    rank: r.rank,
    title: "Can't tell: the GPU idles, but not waiting on launches",
    confidence: 'low',
    evidence: [
      ...base,
      `host wait only ${pc(hostShare)} of the idle time; gaps of 30 µs or more ${pc(r.idle.totals.other.ratio)}`,
    ],
    next: 'Open the trace in Perfetto (ui.perfetto.dev) and read what the CPU does across the longest GPU gap: a checkpoint write, a collective, a stream waiting on an event.',
    decide:
      'The CPU thread across the longest idle gap: a sync or copy there is a host sync; a collective is communication; nothing at all is another process or the profiler.',
    cardId: 'pytorch-profiler',
    cardIds: ['pytorch-profiler', 'host-device-syncs'],
  };
}

function rankText(r: RankReport): string {
  return r.rank === null ? '' : `, rank ${r.rank}`;
}

function causeName(c: HostCause): string {
  return {
    sync: 'syncs (.item(), .cpu(), synchronize)',
    dataLoader: "the DataLoader's __next__",
    optimizer: 'the optimizer step',
    overhead: 'Python and dispatch between launches',
  }[c];
}

function launchText(r: RankReport): string[] {
  const l = r.launch;
  if (!l) return [];
  return [
    `${pc(l.under10UsShare)} of ${l.launches} kernels run under 10 µs; median launch call ${f1(l.cpuMedianUs)} µs, median kernel ${f1(l.gpuMedianUs)} µs`,
  ];
}

function byCause(cause: HostCause, r: RankReport, ev: string[]): Omit<TraceVerdict, 'confidence' | 'rank'> {
  const h = r.host;
  const steps = r.steps.length;
  if (cause === 'dataLoader')
    return {
      kind: 'data-starvation',
      cause,
      title: 'Data starvation: the GPU waits for the DataLoader',
      evidence: [...ev, ...(steps ? [`DataLoader __next__ ${ms(h.dataLoaderUs / steps)} per step`] : [])],
      next: 'Load in parallel and ahead: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True, prefetch_factor=4) on a 16-core host; move decoding and augmentation to the GPU if the cores are busy.',
      cardId: 'data-loader-bottleneck',
      cardIds: ['data-loader-bottleneck', 'pinned-memory-and-prefetch', 'gpu-side-augmentation'],
    };
  if (cause === 'sync')
    return {
      kind: 'small-kernels',
      cause,
      title: 'Host syncs: the GPU waits while the CPU waits on it',
      evidence: [
        ...ev,
        `${h.syncCalls} sync calls${steps ? ` (${f1(h.syncCalls / steps)} per step)` : ''}, ${ms(h.syncUs)} in them`,
      ],
      next: 'Remove the sync from the loop: keep losses and metrics on the GPU and read them every N steps (loss.detach() accumulated, .item() once per log), copy with .to("cpu", non_blocking=True) from pinned memory, avoid .tolist() and .nonzero() in the step.',
      cardId: 'host-device-syncs',
      cardIds: ['host-device-syncs', 'pinned-memory-and-prefetch', 'launch-overhead-cuda-graphs'],
    };
  if (cause === 'optimizer')
    return {
      kind: 'small-kernels',
      cause,
      title: 'The optimizer step launches many small kernels',
      evidence: [...ev, ...(steps ? [`optimizer ${ms(h.optimizerUs / steps)} per step`] : []), ...launchText(r)],
      next: 'Use the fused or multi-tensor optimizer (torch.optim.AdamW(..., fused=True) or foreach=True), or compile the step with torch.compile; CUDA Graphs remove the launches entirely.',
      cardId: 'launch-overhead-cuda-graphs',
      cardIds: ['launch-overhead-cuda-graphs', 'torch-compile-fusion'],
    };
  const short = (r.launch?.under10UsShare ?? 0) >= 0.5 || (r.launch?.shorterThanLaunchShare ?? 0) >= 0.3;
  return {
    kind: 'small-kernels',
    cause,
    title: short
      ? 'Launch-bound: Python and dispatch cannot keep up with short kernels'
      : 'Host-bound: Python between launches keeps the GPU waiting',
    evidence: [...ev, ...launchText(r)],
    next: short
      ? 'Cut launches: CUDA Graphs (torch.cuda.graphs or torch.compile(mode="reduce-overhead")), fuse with torch.compile, or raise the batch size so each kernel does more.'
      : 'Find the Python between launches (torch.profiler with_stack=True, or py-spy): move per-step CPU work out of the loop or into the DataLoader; then torch.compile to cut dispatch.',
    cardId: 'launch-overhead-cuda-graphs',
    cardIds: ['launch-overhead-cuda-graphs', 'small-batches-small-kernels', 'torch-compile-fusion'],
  };
}

function straggler(a: RanksSummary): TraceVerdict {
  const slow = a.perRank.find((p) => p.rank === a.slowestRank)!;
  const others = a.perRank.filter((p) => p.rank !== a.slowestRank);
  return {
    kind: 'straggler',
    cause: 'straggler',
    rank: a.slowestRank,
    title: `Straggler: rank ${a.slowestRank} computes ${pc(a.slowestByRatio - 1)} longer than the median rank`,
    confidence: a.slowestByRatio >= 1.3 ? 'high' : 'medium',
    evidence: [
      `rank ${a.slowestRank}: ${ms(slow.computeUs)} of compute kernels; median rank ${ms(a.medianComputeUs)}`,
      ...others
        .slice(0, 4)
        .map((p) => `rank ${p.rank} spends ${ms(p.ncclUs)} in NCCL (${f1(p.ncclPct)}% of its GPU time)`),
    ],
    next: `Look at rank ${a.slowestRank} alone: its input shard, host (CPU, thermals, a noisy neighbour) and its own verdict; balance the work (sequence lengths, bucket sizes) so every rank reaches the collective together.`,
    cardId: 'distributed-overlap-and-stragglers',
    cardIds: ['distributed-overlap-and-stragglers', 'nccl-hangs-read-100'],
  };
}

function busy(r: RankReport, base: string[]): TraceVerdict {
  const commShare = r.temporal.spanUs > 0 ? r.kernels.commUs / r.temporal.spanUs : 0;
  const overlap = r.kernels.commOverlapPct;
  if (commShare >= 0.4 && overlap !== null && overlap < 30)
    return {
      kind: 'cant-tell',
      cause: 'communication',
      rank: r.rank,
      title: 'Communication takes much of the GPU time, little of it hidden',
      confidence: 'medium',
      evidence: [...base, `NCCL kernels ${pc(commShare)} of the span, ${f0(overlap)}% of it overlapped with compute`],
      next: 'Overlap communication with compute: DDP bucket_cap_mb, FSDP forward/backward prefetch, or fewer, larger collectives.',
      decide: 'Whether the collectives wait for a slow rank: load every rank’s trace together.',
      cardId: 'distributed-overlap-and-stragglers',
      cardIds: ['distributed-overlap-and-stragglers'],
    };
  return {
    kind: 'cant-tell',
    cause: 'busy',
    rank: r.rank,
    title: 'The GPU is busy: a kernel runs most of the time',
    confidence: 'medium',
    evidence: [...base, `compute kernels ${f1(r.temporal.computePct)}% of the span`, ...launchText(r)],
    next: 'The time is in kernels: read the top kernels below. Whether they use the GPU well is SM activity and memory bandwidth, not time: run the GPU lab or Nsight Compute on the top kernel.',
    decide:
      'SM activity and DRAM bandwidth over a step (DCGM, the lab, or Nsight Compute): high SM activity is compute-bound; high DRAM with low SM is memory-bound; both low with the GPU busy is small kernels.',
    cardId: 'throughput-not-utilization',
    cardIds: ['throughput-not-utilization', 'memory-bound-vs-compute-bound', 'mfu'],
  };
}
