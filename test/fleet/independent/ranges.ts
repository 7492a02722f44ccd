/**
 * What each state of a GPU reads on dcgm-exporter, as ranges: the one table the independent cluster draws from.
 * Written from public facts, not from the project's simulator (src/lib/sim) nor from how the audit decides.
 *
 * A job draws nothing for its GPUs: each GPU draws its own level uniformly within a range (`[lo, hi]`), once, and
 * each scrape adds noise around it (`NOISE`). Power is in watts above the model's idle draw, as a share of what is
 * left up to its board limit, so one row serves the H100 and the A100.
 *
 * Sources (short names used below):
 * - facts: /work/shared/reference/gpu-facts.md (section.item).
 * - spec: src/lib/gpu-specs.ts rows `h100-sxm` (700 W, 80 GB, max SM clock 1,980 MHz) and `a100-sxm-80gb`
 *   (400 W, 80 GB, max SM clock 1,410 MHz).
 * - gpu-burn#114: github.com/wilicc/gpu-burn/issues/114, nvidia-smi on an 8× H100 80GB HBM3 node: 72,790 MiB held
 *   at 0% GPU-Util draws 140–145 W in P0 at 32–39 °C; the board's total is 81,559 MiB.
 * - DCGM#120: github.com/NVIDIA/DCGM/issues/120, nvidia-smi -q on an idle H100: SM clock 345 MHz, max 1,980 MHz.
 * - nccl#1432: github.com/NVIDIA/nccl/issues/1432, "a single NCCL kernel, the active SMs is 15%"; nccl#689
 *   (sjeaugey): NCCL launches one block per channel, 2 at least; a kernel on one SM reads 100% GPU-Util "but it's
 *   not using a lot of power".
 */

/** A range a GPU draws its level from, uniformly. */
export type Range = readonly [lo: number, hi: number];

/** A GPU model of the cluster: its dcgm-exporter `modelName` and the numbers its readings scale with. */
export interface Model {
  modelName: string;
  /** Board power limit, W (spec: tdpWatts). */
  tdpW: number;
  /** Draw with no context, W. */
  idleW: Range;
  /** FB_USED + FB_FREE, MiB. */
  fbTotalMiB: number;
  /** Highest SM clock, MHz (spec: maxSmClockMHz). */
  maxClockMHz: number;
  /** SM clock at rest, MHz. */
  idleClockMHz: number;
  /** SMs (spec: smCount). */
  sms: number;
}

export const MODELS = {
  h100: {
    modelName: 'NVIDIA H100 80GB HBM3', // spec nvmlNames
    tdpW: 700, // spec, facts 9.2
    // No context: below the 140 W of a held context (gpu-burn#114); about 10% of the limit, as a P8 board draws.
    idleW: [62, 78],
    fbTotalMiB: 81_559, // gpu-burn#114
    maxClockMHz: 1980, // spec, DCGM#120
    idleClockMHz: 345, // DCGM#120
    sms: 132, // spec, facts 9.1
  },
  a100: {
    modelName: 'NVIDIA A100-SXM4-80GB', // spec nvmlNames
    tdpW: 400, // spec, facts 9.6
    idleW: [48, 62], // no context: about 13% of the 400 W limit (the H100's share, assumed for the A100)
    fbTotalMiB: 81_920, // 80 GiB as nvidia-smi counts an A100 80GB's framebuffer (assumed)
    maxClockMHz: 1410, // spec
    idleClockMHz: 210, // the A100's lowest P-state clock (assumed)
    sms: 108, // spec, facts 9.5
  },
} as const satisfies Record<string, Model>;

export type ModelId = keyof typeof MODELS;

/**
 * One state's readings. `util` GPU-Util %; `sm`, `occ`, `tensor`, `dram` DCGM profiling ratios 0–1; `copy`
 * DCGM_FI_DEV_MEM_COPY_UTIL %; `power` share of (limit − idle) drawn above idle; `heldW` a held context's watts
 * above idle; `fb` share of the framebuffer used; `clock` share of the max SM clock; `temp`/`memTemp` °C;
 * `pcie` bytes/s each way; `reasons` the share of scrapes with the state's clock event reason set.
 */
export interface StateRanges {
  util: Range;
  sm: Range;
  occ: Range;
  tensor: Range;
  dram: Range;
  copy: Range;
  power: Range;
  heldW: Range;
  fb: Range;
  clock: Range;
  temp: Range;
  memTemp: Range;
  pcie: Range;
  reasons: Range;
  /** Clock event bits the state sets on the scrapes it sets any (NVML nvmlClocksEventReason*). */
  reasonBits: number;
}

/** NVML's clock event bits (nvml.h: GpuIdle 0x1, SwPowerCap 0x4, HwSlowdown 0x8, SwThermal 0x20, HwThermal 0x40). */
export const BITS = { idle: 0x1, swPowerCap: 0x4, hwSlowdown: 0x8, swThermal: 0x20, hwThermal: 0x40 } as const;

const NONE: Range = [0, 0];

/** The states a GPU can be in, as causes. */
export type TruthState =
  | 'compute-bound'
  | 'idle'
  | 'idle-allocated'
  | 'data-starvation'
  | 'small-kernels'
  | 'throttled-power'
  | 'throttled-thermal'
  | 'communication-hang';

export const RANGES: Record<TruthState, StateRanges> = {
  // LLM training that works: kernels all the time (facts 1.1), SMs ≥ 80% busy (facts 10.6), tensor pipes at
  // 35–45% MFU and above (facts 5.11), DRAM well under its ~80% ceiling (facts 2.8), 70–92% of the power limit
  // (facts 3.4: real work draws power), near the max clock, 60–78 GB of 80 held (facts 1.9).
  'compute-bound': {
    util: [97, 100],
    sm: [0.8, 0.95],
    occ: [0.25, 0.55],
    tensor: [0.35, 0.65],
    dram: [0.2, 0.5],
    copy: [20, 45],
    power: [0.7, 0.92],
    heldW: NONE,
    fb: [0.75, 0.97],
    clock: [0.9, 1],
    temp: [55, 72],
    memTemp: [60, 78],
    pcie: [2e8, 2e9],
    reasons: [0, 0.08], // a brief SwPowerCap under dense math is expected (facts 3.7), never most of the time
    reasonBits: BITS.swPowerCap,
  },
  // Nothing runs and nothing is held: 0% (facts 1.1), the idle clock and the GpuIdle reason (facts 3.6), a few MiB.
  idle: {
    util: [0, 0],
    sm: NONE,
    occ: NONE,
    tensor: NONE,
    dram: NONE,
    copy: NONE,
    power: NONE,
    heldW: NONE,
    fb: [0, 0.0001],
    clock: [0, 0], // the model's idle clock
    temp: [28, 38],
    memTemp: [30, 42],
    pcie: [0, 2e4],
    reasons: [1, 1],
    reasonBits: BITS.idle,
  },
  // A notebook or a finished job that keeps its memory: 0% with 10–95% of the framebuffer held, a context's draw
  // above idle (gpu-burn#114: 140–145 W held on H100, ~70 W over idle; A100 draws less), idle clocks.
  'idle-allocated': {
    util: [0, 0],
    sm: NONE,
    occ: NONE,
    tensor: NONE,
    dram: NONE,
    copy: NONE,
    power: NONE,
    heldW: [15, 75],
    fb: [0.1, 0.95],
    clock: [0, 0],
    temp: [30, 42], // gpu-burn#114: 32–39 °C
    memTemp: [32, 46],
    pcie: [0, 5e4],
    reasons: [1, 1],
    reasonBits: BITS.idle,
  },
  // The loop waits on the input pipeline: kernels in bursts, GPU-Util swinging 0–100% around 15–55% (facts 8.2,
  // 8.9: "averages around 40%"), CPU cores pegged by the loaders (facts 8.9, 4.6). `util` here is the share of
  // scrapes that land in a burst; in a burst the GPU works as training does, between bursts it rests.
  'data-starvation': {
    util: [0.15, 0.55],
    sm: [0.55, 0.85],
    occ: [0.2, 0.45],
    tensor: [0.2, 0.5],
    dram: [0.15, 0.45],
    copy: [15, 40],
    power: [0.45, 0.8],
    heldW: [15, 60],
    fb: [0.3, 0.8],
    clock: [0.9, 1],
    temp: [40, 58],
    memTemp: [44, 62],
    pcie: [1e9, 6e9], // batches copied in from the host
    reasons: NONE,
    reasonBits: 0,
  },
  // Batch-1 inference or tiny kernels: busy in time, not in space (facts 1.4, 2.4, 8.9): GPU-Util high, SM activity
  // 12–35%, Tensor Cores nearly idle, little power (facts 3.4), a Python thread launching kernels (one core each).
  'small-kernels': {
    util: [92, 100],
    sm: [0.12, 0.35],
    occ: [0.04, 0.15],
    tensor: [0, 0.08],
    dram: [0.03, 0.15],
    copy: [4, 18],
    power: [0.18, 0.38],
    heldW: NONE,
    fb: [0.05, 0.4],
    clock: [0.95, 1],
    temp: [38, 52],
    memTemp: [42, 56],
    pcie: [5e7, 6e8],
    reasons: NONE,
    reasonBits: 0,
  },
  // Training on a node whose power limit was lowered to 50–65% of the board's (nvidia-smi -pl, facts 3.2): it draws
  // the whole lowered limit, SwPowerCap holds the clock down (facts 3.7) in most scrapes, the clock sags to
  // 55–78% of its max, less tensor work gets done.
  'throttled-power': {
    util: [98, 100],
    sm: [0.8, 0.93],
    occ: [0.25, 0.5],
    tensor: [0.25, 0.5],
    dram: [0.15, 0.4],
    copy: [15, 35],
    power: [0.97, 1], // of the lowered limit (series.ts): it runs at the cap
    heldW: NONE,
    fb: [0.75, 0.97],
    clock: [0.55, 0.78],
    temp: [50, 66],
    memTemp: [56, 70],
    pcie: [2e8, 2e9],
    reasons: [0.7, 1],
    reasonBits: BITS.swPowerCap,
  },
  // Training on a node that runs hot (a failed fan, a hot aisle): the die at 86–93 °C and HBM hotter, thermal
  // slowdown (facts 3.9, 3.10) in most scrapes, HW slowdown cutting the clock by half or more (facts 3.8), power
  // falling with the clock.
  'throttled-thermal': {
    util: [98, 100],
    sm: [0.8, 0.93],
    occ: [0.25, 0.5],
    tensor: [0.2, 0.45],
    dram: [0.12, 0.35],
    copy: [12, 30],
    power: [0.4, 0.6],
    heldW: NONE,
    fb: [0.75, 0.97],
    clock: [0.35, 0.5],
    temp: [86, 93],
    memTemp: [92, 99],
    pcie: [2e8, 1.5e9],
    reasons: [0.6, 1],
    reasonBits: BITS.hwThermal | BITS.hwSlowdown | BITS.swThermal,
  },
  // Every rank blocked in a collective: NCCL's kernels spin, one block per channel (nccl#689, 2 at least), so
  // GPU-Util reads 100% (facts 4.20, 10.5) while SM activity is the channels' share of the SMs (nccl#1432: 15%
  // for a running NCCL kernel; here 2–24 channels), nothing moves in DRAM or the tensor pipes, power stays near
  // idle (facts 4.20, nccl#689), memory stays held.
  'communication-hang': {
    util: [100, 100],
    sm: [2, 24], // channels, divided by the model's SMs in series.ts
    occ: [0.005, 0.03],
    tensor: NONE,
    dram: [0, 0.006],
    copy: [0, 1],
    power: [0.01, 0.05],
    heldW: [20, 60],
    fb: [0.75, 0.97],
    clock: [0.9, 1], // a spinning kernel keeps the clock up
    temp: [34, 46],
    memTemp: [38, 50],
    pcie: [0, 1e5],
    reasons: NONE,
    reasonBits: 0,
  },
};

/** Scrape-to-scrape noise: standard deviations around a GPU's level (uniform ± the value here). */
export const NOISE = {
  utilPts: 1.5, // GPU-Util points
  ratio: 0.025, // profiling ratios
  powerW: 5, // facts 3.1: readings within ±5 W
  tempC: 1,
  clockShare: 0.02,
  fbMiB: 64,
} as const;

/** Host CPU (node-exporter) per core, %: what each kind of job puts on the cores it uses. */
export const CPU = {
  /** Every core, whatever runs (system daemons, the exporters). */
  base: [1, 6] as Range,
  /** A training rank's Python thread: launches kernels, then spins in cudaStreamSynchronize. */
  rankThread: [85, 100] as Range,
  /** A data-starved pod's DataLoader workers: all of them busy (facts 4.6: CPU above 90%). */
  starvedWorkers: [88, 100] as Range,
  /** A working pod's DataLoader workers keeping up. */
  workers: [20, 55] as Range,
} as const;

/** Cores per host that node-exporter reports here (real 8-GPU hosts have 100+; the busiest core is what matters). */
export const CORES = 16;
