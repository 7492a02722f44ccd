/**
 * The deterministic scenario generator: pure TypeScript, no Node or DOM imports, so the lab server
 * (`--source sim:<id>`) and the page (labs without a server) produce the same frames.
 *
 * @example
 * const frame = sampleAt('data-starved', 12_500, 'lab-1', { numWorkers: 8 });
 * frame.gpus[0].gpuUtilPct; // ~97 once the fix is applied
 */
import type { GpuSample, HostSample, Throughput } from '../../protocol/metrics.ts';
import { hashString } from './noise.ts';
import { makeContext, simDevices, toGpuSample } from './model.ts';
import { dataStarved, idle, smallKernels } from './scenarios/input.ts';
import { computeBound, memoryBound, throttled } from './scenarios/bound.ts';
import { ncclHang, straggler } from './scenarios/multi.ts';
import type { Knob, ScenarioDef } from './types.ts';

export type { Knob, ScenarioDef } from './types.ts';
export { simDevices } from './model.ts';

/** Every scenario, in the order a menu shows them. */
export const SCENARIOS: readonly ScenarioDef[] = [
  idle,
  dataStarved,
  smallKernels,
  memoryBound,
  computeBound,
  throttled,
  ncclHang,
  straggler,
];

/** Scenario ids, e.g. "data-starved". */
export const SCENARIO_IDS: readonly string[] = SCENARIOS.map((s) => s.id);

/** One simulated tick: what a source hands the sampler. */
export interface SimFrame {
  gpus: GpuSample[];
  host: HostSample;
  /** The simulated training loop's rates (flagged simulated), or null when nothing trains. */
  throughput: Throughput | null;
}

/** Finds a scenario by id, or throws an error that lists the valid ids. */
export function getScenario(id: string): ScenarioDef {
  const found = SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`Unknown scenario "${id}". Use one of: ${SCENARIO_IDS.join(', ')}.`);
  return found;
}

/** The knob values that start a scenario (the problem). */
export function defaultKnobs(id: string): Record<string, number> {
  return Object.fromEntries(getScenario(id).knobs.map((k: Knob) => [k.id, k.default]));
}

/** The knob values that apply the fix. */
export function fixedKnobs(id: string): Record<string, number> {
  return Object.fromEntries(getScenario(id).knobs.map((k: Knob) => [k.id, k.fixed]));
}

/** Seeds may be strings (from a URL) or numbers; both hash to a 32-bit integer. */
function seedOf(seed: string | number): number {
  return typeof seed === 'number' ? seed >>> 0 : hashString(seed);
}

/** The most GPUs one simulated machine may have (`sim:<id>?gpus=N`). */
export const MAX_SIM_GPUS = 16;

/**
 * Checks a GPU count for a scenario: a whole number from 1 to MAX_SIM_GPUS and, for a multi-GPU scenario, a
 * multiple of its ranks (copies of the whole job). Returns the count; throws an error that says the fix.
 */
export function checkGpuCount(scenarioId: string, gpus: number): number {
  const def = getScenario(scenarioId);
  if (!Number.isInteger(gpus) || gpus < 1 || gpus > MAX_SIM_GPUS)
    throw new Error(`gpus must be a whole number from 1 to ${MAX_SIM_GPUS}, e.g. gpus=8 (got ${gpus}).`);
  if (gpus % def.gpuCount !== 0)
    throw new Error(
      `Scenario "${scenarioId}" runs ${def.gpuCount} ranks per job: gpus must be a multiple of ${def.gpuCount}, e.g. gpus=${def.gpuCount * 2}.`,
    );
  return gpus;
}

/** The seed of copy `k` of a scenario's job on one machine: copy 0 keeps the machine's seed. */
const copySeed = (s: number, k: number): number => (k === 0 ? s : hashString(`${s}/${k}`));

/**
 * The frame of `scenarioId` at `tMs` milliseconds after the scenario started. Pure: the same
 * arguments always give the same frame. Unknown knobs are ignored; values are clamped to range.
 * `gpus` (checkGpuCount) runs that many GPUs as independent copies of the scenario's job, each with its own
 * seed (the first keeps `seed`); the host and the training rates are the first copy's.
 */
export function sampleAt(
  scenarioId: string,
  tMs: number,
  seed: string | number,
  knobs: Readonly<Record<string, number>> = {},
  gpus?: number,
): SimFrame {
  const scenario = getScenario(scenarioId);
  const values: Record<string, number> = {};
  for (const k of scenario.knobs) {
    const v = knobs[k.id];
    values[k.id] = v === undefined || !Number.isFinite(v) ? k.default : Math.min(k.max, Math.max(k.min, v));
  }
  const s = seedOf(seed);
  const copies = gpus === undefined ? 1 : checkGpuCount(scenarioId, gpus) / scenario.gpuCount;
  const frames = Array.from({ length: copies }, (_, k) =>
    scenario.frame(makeContext(Math.max(0, tMs), copySeed(s, k), values)),
  );
  const frame = frames[0]!;
  const rates = frame.rates;
  return {
    gpus: frames.flatMap((f, k) =>
      f.gpus.map((g, i) => ({ ...toGpuSample(copySeed(s, k), i, g), index: k * scenario.gpuCount + i })),
    ),
    host: frame.host,
    throughput: rates
      ? {
          samplesPerSec: rates.samplesPerSec === undefined ? null : Math.round(rates.samplesPerSec * 10) / 10,
          tokensPerSec: rates.tokensPerSec === undefined ? null : Math.round(rates.tokensPerSec),
          stepsPerSec: rates.stepsPerSec === undefined ? null : Math.round(rates.stepsPerSec * 100) / 100,
          flopsPerUnit: null,
          ...(rates.dataWaitFraction === undefined
            ? {}
            : { dataWaitFraction: Math.round(rates.dataWaitFraction * 1000) / 1000 }),
          label: `sim:${scenario.id}`,
          reportedAtMs: Math.max(0, tMs),
          simulated: true,
        }
      : null,
  };
}

/** Static device info for a scenario's GPUs. */
export function scenarioDevices(
  scenarioId: string,
  seed: string | number,
  gpus?: number,
): ReturnType<typeof simDevices> {
  const per = getScenario(scenarioId).gpuCount;
  const copies = gpus === undefined ? 1 : checkGpuCount(scenarioId, gpus) / per;
  return Array.from({ length: copies }, (_, k) =>
    simDevices(copySeed(seedOf(seed), k), per).map((d) => ({ ...d, index: k * per + d.index })),
  ).flat();
}

/**
 * Parses `data-starved?numWorkers=8` (the part after `sim:`) into an id and knob values; `gpus=N` (not a knob)
 * sets how many GPUs the machine has (checkGpuCount). Throws an error naming the valid ids or knobs when
 * something does not fit.
 */
export function parseScenarioSpec(spec: string): { id: string; knobs: Record<string, number>; gpus?: number } {
  const [id = '', query = ''] = spec.split('?', 2);
  const scenario = getScenario(id);
  const knobs: Record<string, number> = {};
  let gpus: number | undefined;
  for (const part of query.split('&').filter(Boolean)) {
    const [key = '', raw = ''] = part.split('=', 2);
    if (key === 'gpus') {
      gpus = checkGpuCount(id, raw === '' ? NaN : Number(raw));
      continue;
    }
    const knob = scenario.knobs.find((k) => k.id === key);
    const value = Number(raw);
    if (!knob)
      throw new Error(
        `Scenario "${id}" has no knob "${key}"; knobs: ${scenario.knobs.map((k) => k.id).join(', ') || 'none'} (and gpus=N for the GPU count).`,
      );
    if (raw === '' || !Number.isFinite(value))
      throw new Error(`Knob "${key}" needs a number, e.g. ${key}=${knob.fixed}.`);
    knobs[key] = value;
  }
  return gpus === undefined ? { id, knobs } : { id, knobs, gpus };
}
