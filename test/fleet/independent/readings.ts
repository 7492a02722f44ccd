/**
 * One GPU's dcgm-exporter readings at one scrape, from its state (plan.ts) and its own levels within the state's
 * ranges (ranges.ts), with scrape noise; and the host CPU per core. Pure apart from the seeded PRNG it is handed.
 */
import { CORES, CPU, NOISE, RANGES, type Model, type Range, type StateRanges, type TruthState } from './ranges.ts';
import { prng, type PlannedGpu, type PlannedHost } from './plan.ts';

/** A GPU's level in one state: a number per range, drawn once. */
export type Levels = Record<keyof StateRanges, number>;

const draw = (r: Range, rand: () => number) => r[0] + rand() * (r[1] - r[0]);

/** The GPU's own level in every state of its timeline, drawn from its seed. */
export function levelsOf(gpu: PlannedGpu): Map<TruthState, Levels> {
  const rand = prng(gpu.seed ^ 0x5eed);
  const out = new Map<TruthState, Levels>();
  for (const { state } of gpu.timeline) {
    if (out.has(state)) continue;
    const r = RANGES[state];
    const l = {} as Levels;
    for (const k of Object.keys(r) as (keyof StateRanges)[])
      l[k] = k === 'reasonBits' ? r.reasonBits : draw(r[k] as Range, rand);
    // NCCL sets its channel count per communicator: every rank of a hung job spins the same number of blocks.
    if (state === 'communication-hang') l.sm = Math.round(draw(r.sm, prng(gpu.jobSeed))) * (0.95 + rand() * 0.1);
    out.set(state, l);
  }
  return out;
}

/** One scrape of one GPU, in dcgm-exporter's units. */
export interface Scrape {
  utilPct: number;
  copyPct: number;
  grActive: number;
  smActive: number;
  smOccupancy: number;
  tensorActive: number;
  dramActive: number;
  fbUsedMiB: number;
  fbFreeMiB: number;
  powerW: number;
  powerLimitW: number;
  smClockMHz: number;
  tempC: number;
  memTempC: number;
  pcieTxBps: number;
  pcieRxBps: number;
  reasonMask: number;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const jitter = (rand: () => number, sd: number) => (rand() * 2 - 1) * sd;

/**
 * The scrape of a GPU in `state` with `levels`, its idle draw `idleW`, on `model`; `capShare` is a power-capped
 * node's lowered limit (share of the board's). `rand` is the GPU's noise stream.
 */
export function scrape(
  state: TruthState,
  l: Levels,
  model: Model,
  idleW: number,
  capShare: number | null,
  rand: () => number,
): Scrape {
  const limitW = capShare === null ? model.tdpW : Math.round(model.tdpW * capShare);
  const ratio = (x: number) => clamp(x + jitter(rand, NOISE.ratio * Math.min(1, x * 4 + 0.1)), 0, 1);
  // Data starvation comes in bursts: a scrape lands in one with the GPU's burst share (its `util` level).
  const burst = state === 'data-starvation' ? rand() < l.util : true;
  const resting = state === 'data-starvation' && !burst;
  let utilPct: number;
  if (state === 'data-starvation') utilPct = burst ? 88 + rand() * 12 : rand() * 4;
  else utilPct = l.util === 0 ? 0 : clamp(l.util + jitter(rand, NOISE.utilPts), 0, 100);
  const sm = state === 'communication-hang' ? l.sm / model.sms : l.sm;
  const working = resting ? 0 : 1;
  const busyW =
    state === 'throttled-power'
      ? l.power * limitW
      : idleW + l.heldW * (resting || l.power === 0 ? 1 : 0) + working * l.power * (model.tdpW - idleW);
  const clockShare = l.clock === 0 ? model.idleClockMHz / model.maxClockMHz : l.clock;
  const fbUsed = Math.round(
    clamp(l.fb * model.fbTotalMiB + (l.fb > 0.01 ? jitter(rand, NOISE.fbMiB) : 0), 0, model.fbTotalMiB),
  );
  return {
    utilPct: Math.round(utilPct),
    copyPct: Math.round(clamp(working * l.copy + (l.copy > 0 ? jitter(rand, 2) : 0), 0, 100)),
    grActive: ratio((utilPct / 100) * 0.98),
    smActive: working ? ratio(sm) : ratio(0.005),
    smOccupancy: working ? ratio(l.occ) : 0,
    tensorActive: working ? ratio(l.tensor) : 0,
    dramActive: working ? ratio(l.dram) : ratio(0.002),
    fbUsedMiB: fbUsed,
    fbFreeMiB: model.fbTotalMiB - fbUsed,
    powerW: Math.round(clamp(busyW + jitter(rand, NOISE.powerW), idleW * 0.9, limitW) * 1000) / 1000,
    powerLimitW: limitW,
    smClockMHz: Math.round(
      clamp(
        (clockShare + (l.clock === 0 ? 0 : jitter(rand, NOISE.clockShare))) * model.maxClockMHz,
        0,
        model.maxClockMHz,
      ),
    ),
    tempC: Math.round(l.temp + jitter(rand, NOISE.tempC)),
    memTempC: Math.round(l.memTemp + jitter(rand, NOISE.tempC)),
    pcieTxBps: Math.round(working * l.pcie * (0.6 + rand() * 0.4) * 0.3),
    pcieRxBps: Math.round(working * l.pcie * (0.6 + rand() * 0.4)),
    reasonMask: l.reasonBits !== 0 && rand() < l.reasons ? l.reasonBits : 0,
  };
}

/** What a state puts on its rank's core and on the host's loader cores (CPU in ranges.ts). */
const CPU_OF: Record<TruthState, { rank: Range | null; pool: Range | null }> = {
  'compute-bound': { rank: CPU.rankThread, pool: CPU.workers },
  'throttled-power': { rank: CPU.rankThread, pool: CPU.workers },
  'throttled-thermal': { rank: CPU.rankThread, pool: CPU.workers },
  'small-kernels': { rank: CPU.rankThread, pool: null },
  'communication-hang': { rank: CPU.rankThread, pool: null }, // blocked in a sync that spins; loaders' queues full
  'data-starvation': { rank: CPU.workers, pool: CPU.starvedWorkers },
  'idle-allocated': { rank: null, pool: null },
  idle: { rank: null, pool: null },
};

/**
 * Busy % of each of the host's CORES cores at one scrape: core g is GPU g's rank thread; the other cores are the
 * loader pool, as busy as the hungriest job on the host asks.
 */
export function hostCpu(states: readonly TruthState[], rand: () => number): number[] {
  const cores = Array.from({ length: CORES }, () => draw(CPU.base, rand));
  let pool: Range | null = null;
  states.forEach((s, g) => {
    const c = CPU_OF[s];
    if (c.rank && g < CORES) cores[g] = draw(c.rank, rand);
    if (c.pool && (!pool || c.pool[0] > pool[0])) pool = c.pool;
  });
  if (pool) for (let c = states.length; c < CORES; c++) cores[c] = draw(pool, rand);
  return cores.map((x) => clamp(x, 0, 100));
}

/** The idle draw of each GPU of a host, W: its own, within the model's range. */
export function idleDraws(host: PlannedHost, model: Model): number[] {
  return host.gpus.map((g) => draw(model.idleW, prng(g.seed ^ 0x1d1e)));
}
