/** The one interface every metric source implements: nvml, sim:<scenario>, replay:<file>. */
import type { DeviceInfo, GpuSample, HostSample, Throughput } from '../../src/protocol/metrics.ts';

/** What a source returns for one tick; the sampler adds seq, time and flags. */
export interface SourceReading {
  gpus: GpuSample[];
  host: HostSample | null;
  /** Throughput the source itself knows (simulated or replayed); a reported one takes precedence. */
  throughput: Throughput | null;
}

/** A source of GPU and host readings. `read` is synchronous and must not throw for one bad GPU. */
export interface MetricSource {
  /** "nvml", "sim:<scenario>" or "replay:<file>". */
  readonly id: string;
  /** True for anything that is not a live reading of this machine's GPUs. */
  readonly simulated: boolean;
  /** Why this source was chosen when it is not the one asked for (e.g. auto fell back), else null. */
  readonly reason: string | null;
  /** Static facts about each GPU. */
  devices(): DeviceInfo[];
  /** One reading at `nowMs` (ms since epoch). */
  read(nowMs: number): SourceReading;
  /** Present on a simulated scenario only: changes its knobs while it runs. */
  readonly sim?: SimControl;
  /** Releases the source (nvmlShutdown, file handles). Safe to call twice. */
  close(): void;
}

/** Changes a simulated scenario while it runs (only the sim source has one). */
export interface SimControl {
  /** The running scenario's id, e.g. "data-starved". */
  readonly scenario: string;
  /** Every knob of the running scenario with its current value. */
  knobs(): Record<string, number>;
  /**
   * Switches scenario (its time restarts, its knobs reset) and/or sets knobs; the next tick reflects them.
   * @returns the knobs now. @throws Error naming the valid scenarios, knobs or range.
   */
  set(change: { scenario?: string; knobs?: Record<string, unknown> }): Record<string, number>;
}
