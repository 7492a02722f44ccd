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

/**
 * The frame of `scenarioId` at `tMs` milliseconds after the scenario started. Pure: the same
 * arguments always give the same frame. Unknown knobs are ignored; values are clamped to range.
 */
export function sampleAt(
  scenarioId: string,
  tMs: number,
  seed: string | number,
  knobs: Readonly<Record<string, number>> = {},
): SimFrame {
  const scenario = getScenario(scenarioId);
  const values: Record<string, number> = {};
  for (const k of scenario.knobs) {
    const v = knobs[k.id];
    values[k.id] = v === undefined || !Number.isFinite(v) ? k.default : Math.min(k.max, Math.max(k.min, v));
  }
  const s = seedOf(seed);
  const frame = scenario.frame(makeContext(Math.max(0, tMs), s, values));
  const rates = frame.rates;
  return {
    gpus: frame.gpus.map((g, i) => toGpuSample(s, i, g)),
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
export function scenarioDevices(scenarioId: string, seed: string | number): ReturnType<typeof simDevices> {
  return simDevices(seedOf(seed), getScenario(scenarioId).gpuCount);
}

/**
 * Parses `data-starved?numWorkers=8` (the part after `sim:`) into an id and knob values.
 * Throws an error naming the valid ids or knobs when something does not fit.
 */
export function parseScenarioSpec(spec: string): { id: string; knobs: Record<string, number> } {
  const [id = '', query = ''] = spec.split('?', 2);
  const scenario = getScenario(id);
  const knobs: Record<string, number> = {};
  for (const part of query.split('&').filter(Boolean)) {
    const [key = '', raw = ''] = part.split('=', 2);
    const knob = scenario.knobs.find((k) => k.id === key);
    const value = Number(raw);
    if (!knob)
      throw new Error(
        `Scenario "${id}" has no knob "${key}"; knobs: ${scenario.knobs.map((k) => k.id).join(', ') || 'none'}.`,
      );
    if (raw === '' || !Number.isFinite(value))
      throw new Error(`Knob "${key}" needs a number, e.g. ${key}=${knob.fixed}.`);
    knobs[key] = value;
  }
  return { id, knobs };
}
