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
  /** Releases the source (nvmlShutdown, file handles). Safe to call twice. */
  close(): void;
}
