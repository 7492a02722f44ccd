/**
 * Profiler readings: what a PyTorch profiler trace (or a profiler table someone posted) says about the host side of
 * a training step, in the shape the diagnosis reads. Counters say *that* a GPU waits; these say what the host was
 * doing meanwhile. `src/lib/trace/readings.ts` fills them from a trace report; the real-case benchmark fills them
 * from posted profiler output. A reading that was not measured is null with its reason in `nullReasons`, never 0.
 *
 * The rules here decide only what counters alone could not: `withProfile` replaces a counter "can't tell" (and
 * nothing else) with the profile's verdict, and `profileVerdict` is the whole verdict for a trace alone. Pure.
 *
 * Host syncs get no kind of their own. A sync-bound loop, seen from the GPU, is the same shape as a launch-bound
 * one: the GPU drains its queue and waits for the host to launch more (HTA files both under "host wait"), and
 * counters can never tell the two apart (both read as swinging GPU-Util and low SM activity). So the kind stays
 * `small-kernels`, the kind the fleet counts and costs, and `cause: 'sync'` carries the different fix (remove the
 * sync, not fuse kernels) with its own title, card and next step. The real-case benchmark already labels a
 * sync-blocked loop so (test/fixtures/real/cases.yaml, sglang-24047-cuda-graph-decode).
 */
import type { Verdict } from './types.ts';
import type { LabSetup } from './setup.ts';
import { STARVED_WAIT } from './gpu.ts';

/** What the profiler measured over the profiled steps. Shares are 0–1; times are milliseconds. */
export interface ProfileReadings {
  /** Where they come from, e.g. "torch.profiler trace rank0.json, 4 steps". */
  source: string;
  /** Profiled steps (`ProfilerStep#N`), and their mean length. */
  steps: number | null;
  stepMs: number | null;
  /** Share of the profiled span with no kernel, copy or memset on the GPU (HTA's temporal breakdown, idle). */
  gpuIdleShare: number | null;
  /**
   * Host launch/dispatch share: share of the GPU's idle time spent waiting while the host ran Python and dispatch
   * between launches (HTA's host wait, less the moments inside a sync or the DataLoader).
   */
  launchShare: number | null;
  /** Kernel launches per step. */
  launchesPerStep: number | null;
  /** Syncs per step (cudaStreamSynchronize, cudaDeviceSynchronize, event syncs, blocking copies) and their time. */
  syncsPerStep: number | null;
  syncMsPerStep: number | null;
  /** Share of the GPU's idle time spent waiting while the host sat in a sync (`.item()`, `.cpu()`, synchronize). */
  syncShare: number | null;
  /** Time per step in the DataLoader's `__next__` (the loop waiting for a batch). */
  dataLoaderMsPerStep: number | null;
  /** Share of the GPU's idle time spent waiting while the host sat in the DataLoader's `__next__`. */
  dataLoaderShare: number | null;
  /** Why each null reading is null. */
  nullReasons: Partial<Record<ProfileField, string>>;
}

/** The readings' names. */
export type ProfileField = Exclude<keyof ProfileReadings, 'source' | 'nullReasons'>;

/** Every reading, in the order evidence lists them. */
export const PROFILE_FIELDS: readonly ProfileField[] = [
  'steps',
  'stepMs',
  'gpuIdleShare',
  'launchShare',
  'launchesPerStep',
  'syncsPerStep',
  'syncMsPerStep',
  'syncShare',
  'dataLoaderMsPerStep',
  'dataLoaderShare',
];

/** What the GPU waited on, by the profile. */
export type ProfileCause = 'dataLoader' | 'sync' | 'launch';

/** A profile's verdict: the engine's kind, and which host activity the GPU waited on. */
export interface ProfileVerdict extends Verdict {
  cause: ProfileCause;
}

/**
 * GPU idle share below which the GPU counts as busy and the host is not the limit: 15%. This engine's own line
 * (src/lib/trace/verdict.ts BUSY_IDLE_PCT), not HTA's: HTA reports idle time and names no threshold.
 */
export const BUSY_IDLE_SHARE = 0.15;
/**
 * Share of the GPU's idle time one host cause must account for to be named: 30% names it (medium), 50% (a
 * majority of the idle time) names it with high confidence. This engine's lines, the ones the trace verdict used
 * before it read through here (verdict.ts: host wait ≥ 30% of idle; deciding share 60% of host wait with host
 * wait ≥ 50% of idle, i.e. about 30–50% of idle). HTA attributes idle time to host wait but ranks no causes.
 */
export const CAUSE_SHARE = 0.3;
export const CAUSE_SHARE_HIGH = 0.5;
/**
 * Mean GPU time per launched kernel below which kernels are "short": 10 µs, the issue's line for HTA's kernel
 * launch statistics (share of kernels under 10 µs). HTA's own test is a kernel shorter than its launch call
 * (`gpu_duration < cpu_duration`, cuda_kernel_analysis.py); a CUDA launch costs "on the order of microseconds"
 * (gpu-facts.md 4.9), and Python and dispatch add more per op, so a kernel under 10 µs ends before the next
 * launch arrives.
 */
export const SHORT_KERNEL_US = 10;
/** GPU idle share above which short kernels alone say launch-bound: most of the step (> 50%) waits for launches. */
export const LAUNCH_IDLE_SHARE = 0.5;
/**
 * Loader share of a step that is starvation: STARVED_WAIT (25%, gpu.ts), the same line the counters' data-wait
 * fraction uses, since DataLoader `__next__` time per step over step time is that fraction; 40% gives high
 * confidence there too. gpu-facts.md 4.5: during `enumerate(DataLoader)` "the GPU is idle".
 */
const STARVED_HIGH = 0.4;

const pc = (x: number): string => `${Math.round(100 * x)}%`;
const msText = (x: number): string => (x >= 100 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`);

/** Null readings with one reason for each (a profile that measured nothing). */
export function emptyProfile(source: string, why: string): ProfileReadings {
  const p = { source, nullReasons: {} } as ProfileReadings;
  for (const f of PROFILE_FIELDS) {
    (p as unknown as Record<string, unknown>)[f] = null;
    p.nullReasons[f] = why;
  }
  return p;
}

/** Share of each step spent in the DataLoader, or null. */
export function loaderShare(p: ProfileReadings): number | null {
  return p.dataLoaderMsPerStep !== null && p.stepMs !== null && p.stepMs > 0
    ? Math.min(1, p.dataLoaderMsPerStep / p.stepMs)
    : null;
}

/** Mean GPU time per launched kernel, µs, from the idle share, step time and launches; or null. */
export function meanKernelUs(p: ProfileReadings): number | null {
  if (p.gpuIdleShare === null || p.stepMs === null || !p.launchesPerStep) return null;
  return ((1 - p.gpuIdleShare) * p.stepMs * 1000) / p.launchesPerStep;
}

function idleLine(p: ProfileReadings): string[] {
  return p.gpuIdleShare === null
    ? []
    : [
        `GPU idle ${pc(p.gpuIdleShare)} of the profiled time${p.stepMs === null ? '' : ` (steps of ${msText(p.stepMs)})`} (${p.source})`,
      ];
}

/** `perStep`: the share is of each step (true) or of the GPU's idle time (false). */
function starved(p: ProfileReadings, share: number, perStep: boolean): ProfileVerdict {
  return {
    kind: 'data-starvation',
    cause: 'dataLoader',
    title: 'Data starvation: the GPU waits for the DataLoader',
    // Without the GPU's idle share, the loop could be waiting while queued kernels still run: medium at most.
    confidence: share >= (perStep ? STARVED_HIGH : CAUSE_SHARE_HIGH) && p.gpuIdleShare !== null ? 'high' : 'medium',
    cardId: 'data-loader-bottleneck',
    evidence: [
      ...idleLine(p),
      perStep
        ? `DataLoader __next__ ${msText(p.dataLoaderMsPerStep ?? 0)} of each ${msText(p.stepMs ?? 0)} step (${pc(share)})`
        : `${pc(share)} of the GPU's idle time waits on the DataLoader's __next__`,
      ...(p.gpuIdleShare === null ? ['GPU idle share not measured'] : []),
    ],
    next: 'Load in parallel and ahead: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True, prefetch_factor=4) on a 16-core host; move decoding and augmentation to the GPU if the cores are busy.',
  };
}

function syncBound(p: ProfileReadings, share: number): ProfileVerdict {
  const per =
    p.syncsPerStep === null
      ? ''
      : `${p.syncsPerStep >= 10 ? Math.round(p.syncsPerStep) : p.syncsPerStep.toFixed(1)} syncs per step${p.syncMsPerStep === null ? '' : `, ${msText(p.syncMsPerStep)} in them`}; `;
  return {
    kind: 'small-kernels',
    cause: 'sync',
    title: 'Host syncs: the GPU waits while the CPU waits on it',
    confidence: share >= CAUSE_SHARE_HIGH ? 'high' : 'medium',
    cardId: 'host-device-syncs',
    evidence: [...idleLine(p), `${per}${pc(share)} of the GPU's idle time follows a sync`],
    next: 'Remove the sync from the loop: keep losses and metrics on the GPU and read them every N steps (loss.detach() accumulated, .item() once per log), copy with .to("cpu", non_blocking=True) from pinned memory, avoid .tolist() and .nonzero() in the step.',
  };
}

function launchBound(p: ProfileReadings, line: string, high: boolean, setup: readonly LabSetup[]): ProfileVerdict {
  const graphs = setup.includes('cuda-graphs');
  return {
    kind: 'small-kernels',
    cause: 'launch',
    title: 'Launch-bound: Python and dispatch cannot keep up with the kernels',
    confidence: high ? 'high' : 'medium',
    cardId: 'launch-overhead-cuda-graphs',
    evidence: [...idleLine(p), line],
    next: graphs
      ? 'The step already replays as a CUDA Graph: give each kernel more work (a larger batch, fused ops with torch.compile).'
      : 'Cut launches: CUDA Graphs (torch.cuda.graphs or torch.compile(mode="reduce-overhead")), fuse with torch.compile, or raise the batch size so each kernel does more.',
  };
}

/**
 * The verdict the profile alone gives, or null when it does not decide (the GPU busy, or no host cause large
 * enough, or the readings that would decide it missing). Order: the DataLoader's share of each step (the same
 * quantity and line as the counters' data-wait fraction), then the GPU's idle time by host cause (the DataLoader,
 * syncs, launches: the largest, if it reaches CAUSE_SHARE), then short kernels with the GPU idle most of the step.
 */
export function profileVerdict(p: ProfileReadings, setup: readonly LabSetup[] = []): ProfileVerdict | null {
  // A GPU busy for most of the profiled time is not waiting on the host, however long the host's calls take.
  if (p.gpuIdleShare !== null && p.gpuIdleShare < BUSY_IDLE_SHARE) return null;
  const loader = loaderShare(p);
  if (loader !== null && loader >= STARVED_WAIT) return starved(p, loader, true);
  if (p.gpuIdleShare === null) return null;
  const sync = p.syncShare ?? 0;
  const launch = p.launchShare ?? 0;
  const data = p.dataLoaderShare ?? 0;
  if (p.dataLoaderShare !== null && data >= CAUSE_SHARE && data >= sync && data >= launch)
    return starved(p, data, false);
  if (p.syncShare !== null && sync >= CAUSE_SHARE && sync >= launch && p.syncsPerStep !== 0) return syncBound(p, sync);
  if (p.launchShare !== null && launch >= CAUSE_SHARE)
    return launchBound(
      p,
      `${pc(launch)} of the GPU's idle time waits on Python and dispatch between launches (host wait, no sync or DataLoader)`,
      launch >= CAUSE_SHARE_HIGH,
      setup,
    );
  const kernelUs = meanKernelUs(p);
  if (kernelUs !== null && kernelUs < SHORT_KERNEL_US && p.gpuIdleShare > LAUNCH_IDLE_SHARE)
    return launchBound(
      p,
      `${Math.round(p.launchesPerStep ?? 0)} launches per step, ${kernelUs.toFixed(1)} µs of GPU time each on average: each kernel ends before the host launches the next`,
      false,
      setup,
    );
  return null;
}

/**
 * The counters' verdict, or, where it is "can't tell", the profile's verdict with the counters' evidence kept in
 * front. A verdict the counters decided is never overruled.
 * @example withProfile(cantTell, traceReadings(rank)).kind // 'data-starvation'
 */
export function withProfile(
  v: Verdict,
  p: ProfileReadings | null | undefined,
  setup: readonly LabSetup[] = [],
): Verdict {
  if (!p || v.kind !== 'cant-tell') return v;
  const pv = profileVerdict(p, setup);
  if (!pv) return v;
  const { cause: _cause, ...rest } = pv;
  return { ...rest, evidence: [...v.evidence, ...pv.evidence] };
}
