/**
 * The independent cluster's layout and its ground truth: hosts of 8 H100 or A100 GPUs, each scraped by one of three
 * dcgm-exporter flavours, half through a Kubernetes ServiceMonitor, each running one of ten host scenarios whose
 * jobs put their GPUs in known states over time. The truth is the cause each GPU is in at each moment, written here
 * and nowhere else; the audit never sees it. Pure and seeded.
 */
import { MODELS, type ModelId, type TruthState } from './ranges.ts';

/** A seeded PRNG (mulberry32): the same seed gives the same cluster. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * dcgm-exporter as a fleet runs it:
 * - `v4-prof`: 4.x after its `Hostname` → `hostname` rename (#655), a counters CSV that adds SM activity and
 *   occupancy, the power limit and DCGM_FI_DEV_CLOCKS_EVENT_REASONS to the profiling fields;
 * - `v3-prof`: 3.x (`Hostname`), the same CSV with the clock event mask under its pre-4.0 name
 *   DCGM_FI_DEV_CLOCK_THROTTLE_REASONS;
 * - `v3-default`: 3.x with its default counters (etc/default-counters.csv at 3.3.9-3.6.1: no DCGM_FI_PROF_* gauges,
 *   no clock event mask).
 */
export type Flavour = 'v4-prof' | 'v3-prof' | 'v3-default';
export const FLAVOURS: readonly Flavour[] = ['v4-prof', 'v3-prof', 'v3-default'];

/** What a flavour exports beyond the counters every flavour has. */
export const EXPORTS: Record<Flavour, { profiling: boolean; reasons: 'v4' | 'v3' | null; powerLimit: boolean }> = {
  'v4-prof': { profiling: true, reasons: 'v4', powerLimit: true },
  'v3-prof': { profiling: true, reasons: 'v3', powerLimit: false },
  'v3-default': { profiling: false, reasons: null, powerLimit: false },
};

/** A stretch of a GPU's day in one state: from `fromS` (seconds into the window) to the next stretch. */
export interface Stretch {
  fromS: number;
  state: TruthState;
}

export interface PlannedGpu {
  index: number;
  uuid: string;
  /** The workload that holds it (pod or Slurm job), or null when nothing holds it. */
  owner: { namespace: string; pod: string; container: string } | { hpcJob: string } | null;
  /** Its states over the window, oldest first; the first from 0. */
  timeline: Stretch[];
  /** The seed of its own levels and noise. */
  seed: number;
  /** The seed of what its job sets for all its GPUs alike (a communicator's NCCL channel count). */
  jobSeed: number;
}

export interface PlannedHost {
  hostname: string;
  model: ModelId;
  flavour: Flavour;
  /** Scraped through a ServiceMonitor: `pod`/`namespace`/`container` name the exporter's pod, the workload's come as `exported_*`. */
  kubernetes: boolean;
  /** The node's IP (the instance Kubernetes scrapes). */
  ip: string;
  scenario: Scenario;
  gpus: PlannedGpu[];
  /** The lowered power limit of a power-capped node, as a share of the board's. */
  powerCapShare: number | null;
}

export const SCENARIOS = [
  'training', // one 8-GPU job, compute-bound all day
  'idle-node', // nothing scheduled
  'notebooks', // 8 single-GPU notebook pods holding memory, idle
  'starved', // 8 single-GPU training pods waiting on their input pipelines
  'small-kernels', // 8 single-GPU batch-1 inference pods
  'power-capped', // one 8-GPU job on a node with a lowered power limit
  'hot-node', // one 8-GPU job on a node that runs hot
  'nccl-hang', // one 8-GPU job that trains, then hangs in a collective until the end
  'shared', // two 4-GPU jobs: one hangs after a while, the other trains all day
  'busy-then-held', // one 8-GPU job that trains, then idles holding its memory
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export const GPUS_PER_HOST = 8;
const DAY_S = 86_400;

/**
 * The cluster for `gpus` GPUs (a multiple of 8) over `windowS` seconds. Host i runs scenario i mod 10; its
 * flavour, scrape path and model cycle with i div 10, so every scenario meets every flavour and both scrape paths.
 */
export function planCluster(gpus: number, windowS = DAY_S, seed = 26): PlannedHost[] {
  if (gpus % GPUS_PER_HOST !== 0) throw new Error(`the GPU count must be a multiple of 8 (got ${gpus})`);
  const rand = prng(seed);
  return Array.from({ length: gpus / GPUS_PER_HOST }, (_, i) => {
    const scenario = SCENARIOS[i % SCENARIOS.length]!;
    const round = Math.floor(i / SCENARIOS.length);
    const flavour = FLAVOURS[round % FLAVOURS.length]!;
    const kubernetes = (round + i) % 2 === 0;
    const model: ModelId = (i + Math.floor(round / 2)) % 2 === 0 ? 'h100' : 'a100';
    const hostname = `${model === 'h100' ? 'hgx' : 'dgx'}-${String(i).padStart(4, '0')}`;
    const at = (lo: number, hi: number) => Math.round((lo + rand() * (hi - lo)) * windowS);
    const gpus = hostGpus(scenario, i, kubernetes, at, seed);
    return {
      hostname,
      model,
      flavour,
      kubernetes,
      ip: `10.${40 + (i >> 8)}.${i & 255}.${11 + (i % 7)}`,
      scenario,
      gpus,
      powerCapShare: scenario === 'power-capped' ? 0.5 + rand() * 0.15 : null,
    };
  });
}

/** The GPUs of one host: who holds each and its states over the window. */
function hostGpus(
  scenario: Scenario,
  hostIndex: number,
  kubernetes: boolean,
  at: (lo: number, hi: number) => number,
  seed: number,
): PlannedGpu[] {
  // A Slurm job id per job: slot 0 the host's job, 1 the shared node's second, 10 + g the single-GPU job on GPU g.
  const job = (name: string, ns: string, slot = name.endsWith('b') ? 1 : 0) =>
    kubernetes
      ? { namespace: ns, pod: `${name}-${hostIndex}`, container: name.split('-')[0]! }
      : { hpcJob: String(700_000 + hostIndex * 100 + slot) };
  const single = (name: string, ns: string, g: number) => job(`${name}-${g}`, ns, 10 + g);
  const flat = (state: TruthState): Stretch[] => [{ fromS: 0, state }];
  const hangAt = at(0.1, 0.45); // the hang starts between 2.4 h and 10.8 h into a day
  const releaseAt = at(0.25, 0.75); // busy-then-held: training stops between 6 h and 18 h
  return Array.from({ length: GPUS_PER_HOST }, (_, g) => {
    const plan = ((): Pick<PlannedGpu, 'owner' | 'timeline'> => {
      switch (scenario) {
        case 'training':
          return { owner: job('llm-train', 'research'), timeline: flat('compute-bound') };
        case 'idle-node':
          return { owner: null, timeline: flat('idle') };
        case 'notebooks':
          return { owner: single('jupyter', 'notebooks', g), timeline: flat('idle-allocated') };
        case 'starved':
          return { owner: single('vision-ft', 'cv', g), timeline: flat('data-starvation') };
        case 'small-kernels':
          return { owner: single('embed-serve', 'inference', g), timeline: flat('small-kernels') };
        case 'power-capped':
          return { owner: job('llm-train', 'research'), timeline: flat('throttled-power') };
        case 'hot-node':
          return { owner: job('llm-train', 'research'), timeline: flat('throttled-thermal') };
        case 'nccl-hang':
          return {
            owner: job('moe-train', 'research'),
            timeline: [
              { fromS: 0, state: 'compute-bound' },
              { fromS: hangAt, state: 'communication-hang' },
            ],
          };
        case 'shared':
          return g < 4
            ? {
                owner: job('rl-train-a', 'agents'),
                timeline: [
                  { fromS: 0, state: 'compute-bound' },
                  { fromS: hangAt, state: 'communication-hang' },
                ],
              }
            : { owner: job('sft-train-b', 'research'), timeline: flat('compute-bound') };
        case 'busy-then-held':
          return {
            owner: job('eval-sweep', 'research'),
            timeline: [
              { fromS: 0, state: 'compute-bound' },
              { fromS: releaseAt, state: 'idle-allocated' },
            ],
          };
      }
    })();
    return {
      index: g,
      uuid: `GPU-${uuidPart(hostIndex, g, seed)}`,
      ...plan,
      seed: (seed * 1_000_003 + hostIndex * 97 + g * 13) >>> 0,
      jobSeed: (seed * 7919 + hashOf(JSON.stringify(plan.owner ?? `${hostIndex}/${g}`))) >>> 0,
    };
  });
}

/** A 32-bit hash of a string (FNV-1a). */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A UUID-shaped id, stable for a host and GPU. */
function uuidPart(host: number, gpu: number, seed: number): string {
  const r = prng(seed ^ (host * 131 + gpu * 7919));
  const hex = (n: number) =>
    Array.from({ length: n }, () =>
      Math.floor(r() * 16)
        .toString(16)
        .toString(),
    ).join('');
  return `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
}

/** A GPU's state at `tS` seconds into the window. */
export function stateAt(gpu: PlannedGpu, tS: number): TruthState {
  let s = gpu.timeline[0]!.state;
  for (const st of gpu.timeline) if (st.fromS <= tS) s = st.state;
  return s;
}

/** The host's model row. */
export const modelOf = (h: PlannedHost) => MODELS[h.model];
