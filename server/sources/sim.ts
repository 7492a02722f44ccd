/**
 * The simulated source: a scenario from src/lib/sim, timed from when the source was created.
 * Always flagged simulated; `reason` says why simulation is running (asked for, or NVML failed).
 * Its `sim` control changes the scenario's knobs (or the scenario) while it runs: the lab pages
 * apply a step's fix through `POST /api/sim/knobs` (server/sim-routes.ts) instead of a restart.
 */
import { checkGpuCount, getScenario, parseScenarioSpec, sampleAt, scenarioDevices } from '../../src/lib/sim/index.ts';
import type { MetricSource, SimControl, SourceReading } from './types.ts';

/** Options: `spec` is "data-starved", "data-starved?numWorkers=8" or "data-starved?gpus=8" (a machine of 8 GPUs). */
export interface SimSourceOptions {
  spec: string;
  /** When the scenario starts (ms since epoch); defaults to the first read. */
  startMs?: number;
  seed?: string;
  reason?: string | null;
}

/** Creates a simulated source. @throws Error naming the valid scenarios or knobs for a bad spec. */
export function createSimSource(options: SimSourceOptions): MetricSource & { readonly sim: SimControl } {
  const parsed = parseScenarioSpec(options.spec);
  let scenario = parsed.id;
  let knobs: Record<string, number> = parsed.knobs;
  const gpus = parsed.gpus; // fixed for the life of the source: the device list does not change
  const gpusQuery = gpus === undefined ? '' : `?gpus=${gpus}`;
  let id = `sim:${options.spec}`;
  let reason = options.reason ?? `simulated scenario "${scenario}"`;
  const seed = options.seed ?? 'saturate';
  let startMs = options.startMs ?? null;
  let lastReadMs: number | null = null;
  const sim: SimControl = {
    get scenario() {
      return scenario;
    },
    knobs() {
      const values: Record<string, number> = {};
      for (const k of getScenario(scenario).knobs) values[k.id] = knobs[k.id] ?? k.default;
      return values;
    },
    set(change) {
      const next = change.scenario ?? scenario;
      const def = getScenario(next); // throws, naming the scenarios, for an unknown one
      if (gpus !== undefined) checkGpuCount(next, gpus); // a 4-rank job cannot fill 6 GPUs
      const patch = change.knobs ?? {};
      for (const [key, value] of Object.entries(patch)) {
        const knob = def.knobs.find((k) => k.id === key);
        if (!knob)
          throw new Error(
            `Scenario "${next}" has no knob "${key}"; knobs: ${def.knobs.map((k) => k.id).join(', ') || 'none'}.`,
          );
        if (typeof value !== 'number' || !Number.isFinite(value) || value < knob.min || value > knob.max)
          throw new Error(`Knob "${key}" must be a number from ${knob.min} to ${knob.max} (the fix is ${knob.fixed}).`);
      }
      if (next !== scenario) {
        scenario = next;
        knobs = {};
        startMs = lastReadMs; // a new scenario starts at its beginning
        id = `sim:${next}${gpusQuery}`;
        reason = options.reason ? `${options.reason} Scenario now "${next}".` : `simulated scenario "${next}"`;
      }
      knobs = { ...knobs, ...(patch as Record<string, number>) };
      return sim.knobs();
    },
  };
  return {
    get id() {
      return id;
    },
    simulated: true,
    get reason() {
      return reason;
    },
    sim,
    devices: () => scenarioDevices(scenario, seed, gpus),
    read(nowMs: number): SourceReading {
      startMs ??= nowMs;
      lastReadMs = nowMs;
      const frame = sampleAt(scenario, nowMs - startMs, seed, knobs, gpus);
      const throughput = frame.throughput ? { ...frame.throughput, reportedAtMs: nowMs } : null;
      return { gpus: frame.gpus, host: frame.host, throughput };
    },
    close() {},
  };
}
