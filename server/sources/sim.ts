/**
 * The simulated source: a scenario from src/lib/sim, timed from when the source was created.
 * Always flagged simulated; `reason` says why simulation is running (asked for, or NVML failed).
 */
import { parseScenarioSpec, sampleAt, scenarioDevices } from '../../src/lib/sim/index.ts';
import type { MetricSource, SourceReading } from './types.ts';

/** Options: `spec` is "data-starved" or "data-starved?numWorkers=8". */
export interface SimSourceOptions {
  spec: string;
  /** When the scenario starts (ms since epoch); defaults to the first read. */
  startMs?: number;
  seed?: string;
  reason?: string | null;
}

/** Creates a simulated source. @throws Error naming the valid scenarios or knobs for a bad spec. */
export function createSimSource(options: SimSourceOptions): MetricSource {
  const { id, knobs } = parseScenarioSpec(options.spec);
  const seed = options.seed ?? 'saturate';
  let startMs = options.startMs ?? null;
  return {
    id: `sim:${options.spec}`,
    simulated: true,
    reason: options.reason ?? `simulated scenario "${id}"`,
    devices: () => scenarioDevices(id, seed),
    read(nowMs: number): SourceReading {
      startMs ??= nowMs;
      const frame = sampleAt(id, nowMs - startMs, seed, knobs);
      const throughput = frame.throughput ? { ...frame.throughput, reportedAtMs: nowMs } : null;
      return { gpus: frame.gpus, host: frame.host, throughput };
    },
    close() {},
  };
}
