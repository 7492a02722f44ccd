/**
 * `GET /metrics`: the latest tick in Prometheus text format (prom-client). Names follow Prometheus
 * conventions: a `saturate_` prefix, base units (bytes, watts, hertz, celsius), 0–1 `_ratio`s, and
 * labels `gpu` (index), `uuid` and `name`. A value that is unknown (a metric the GPU cannot give, no
 * throughput reported, no host reading, no sample yet) has no series at all, never a 0.
 * `saturate_sample_timestamp_seconds{source}` shows when the source was last sampled.
 */
import { Gauge, Registry } from 'prom-client';
import type { GpuSample, StreamMessage } from '../src/protocol/metrics.ts';

type GpuNumberField = { [K in keyof GpuSample]-?: GpuSample[K] extends number | null ? K : never }[keyof GpuSample];

/** [metric name, help, field, scale to base unit]. */
const GPU_GAUGES: readonly (readonly [string, string, GpuNumberField, number])[] = [
  ['gpu_utilization_ratio', 'Share of the sample period in which any kernel ran (NVML GPU-Util).', 'gpuUtilPct', 0.01],
  ['gpu_memory_utilization_ratio', 'Share of time device memory was read or written.', 'memUtilPct', 0.01],
  ['gpu_memory_used_bytes', 'Device memory allocated.', 'memUsedBytes', 1],
  ['gpu_memory_total_bytes', 'Device memory in total.', 'memTotalBytes', 1],
  ['gpu_power_watts', 'Board power draw.', 'powerWatts', 1],
  ['gpu_power_limit_watts', 'Enforced power limit.', 'powerLimitWatts', 1],
  ['gpu_temperature_celsius', 'GPU core temperature.', 'temperatureC', 1],
  ['gpu_sm_clock_hertz', 'Current SM clock.', 'smClockMhz', 1e6],
  ['gpu_memory_clock_hertz', 'Current memory clock.', 'memClockMhz', 1e6],
  ['gpu_pcie_transmit_bytes_per_second', 'PCIe transmit rate (GPU to host).', 'pcieTxBytesPerSec', 1],
  ['gpu_pcie_receive_bytes_per_second', 'PCIe receive rate (host to GPU).', 'pcieRxBytesPerSec', 1],
  ['gpu_sm_active_ratio', 'GPM SM utilization: share of SMs with a resident warp.', 'smActivePct', 0.01],
  ['gpu_sm_occupancy_ratio', 'GPM SM occupancy: resident warps over the maximum.', 'smOccupancyPct', 0.01],
  ['gpu_tensor_active_ratio', 'GPM any-tensor-pipe utilization.', 'tensorActivePct', 0.01],
  ['gpu_dram_active_ratio', 'GPM DRAM bandwidth utilization.', 'dramActivePct', 0.01],
];

/** A gauge's help and labels; `make` builds it in a given registry. */
const gauge = (name: string, help: string, labelNames: string[] = []) => ({
  name,
  make: (registry: Registry) => new Gauge({ name, help, labelNames, registers: [registry] }),
});

const GPU_LABELS = ['gpu', 'uuid', 'name'];
const DEFS = {
  reasons: gauge('saturate_gpu_clock_event_reason', 'Active clock event (throttle) reasons, 1 when active.', [
    ...GPU_LABELS,
    'reason',
  ]),
  lost: gauge('saturate_gpu_lost', '1 when the GPU cannot be read (e.g. fell off the bus).', GPU_LABELS),
  cpu: gauge('saturate_host_cpu_utilization_ratio', 'Host CPU utilization, all cores.'),
  core: gauge('saturate_host_core_utilization_ratio', 'Host CPU utilization per logical core.', ['core']),
  memUsed: gauge('saturate_host_memory_used_bytes', 'Host memory in use.'),
  load1: gauge('saturate_host_load1', 'Host 1-minute load average.'),
  samples: gauge('saturate_training_samples_per_second', 'Training samples per second (reported or simulated).'),
  tokens: gauge('saturate_training_tokens_per_second', 'Training tokens per second (reported or simulated).'),
  steps: gauge('saturate_training_steps_per_second', 'Optimizer steps per second (reported or simulated).'),
  info: gauge('saturate_source_info', 'The metric source; simulated="true" for anything not live.', [
    'source',
    'simulated',
    'version',
  ]),
  sampledAt: gauge(
    'saturate_sample_timestamp_seconds',
    'When the source was last sampled (Unix time): a value that stops moving is a stalled sampler.',
    ['source'],
  ),
};

/**
 * A renderer bound to a tick getter; `render()` returns the exposition text. Each render fills a
 * fresh registry with the series that have a value in the latest tick, and only those: prom-client
 * prints an unlabelled gauge that was never set as 0, and an unknown value must be absent, not 0.
 */
export function createPrometheus(
  latest: () => StreamMessage | null,
  version: string,
): { contentType: string; render(): Promise<string> } {
  const contentType = new Registry().contentType;
  return {
    contentType,
    async render() {
      const registry = new Registry();
      const made = new Map<string, Gauge>();
      const g = (def: { name: string; make: (r: Registry) => Gauge }): Gauge => {
        let m = made.get(def.name);
        if (!m) {
          m = def.make(registry);
          made.set(def.name, m);
        }
        return m;
      };
      const m = latest();
      if (m) {
        g(DEFS.info).set({ source: m.source, simulated: String(m.simulated), version }, 1);
        g(DEFS.sampledAt).set({ source: m.source }, m.sampledAtMs / 1000);
        for (const gpu of m.gpus) {
          const l = { gpu: String(gpu.index), uuid: gpu.uuid, name: gpu.name };
          g(DEFS.lost).set(l, gpu.error === null ? 0 : 1);
          for (const [name, help, field, scale] of GPU_GAUGES) {
            const v = gpu[field];
            if (typeof v === 'number') g(gauge(`saturate_${name}`, help, GPU_LABELS)).set(l, v * scale);
          }
          for (const r of gpu.clockEventReasons ?? []) g(DEFS.reasons).set({ ...l, reason: r }, 1);
        }
        if (m.host) {
          g(DEFS.cpu).set(m.host.cpuPct / 100);
          m.host.perCorePct.forEach((p, i) => g(DEFS.core).set({ core: String(i) }, p / 100));
          g(DEFS.memUsed).set(m.host.mem.usedBytes);
          g(DEFS.load1).set(m.host.load.avg1);
        }
        const t = m.throughput;
        if (t?.samplesPerSec != null) g(DEFS.samples).set(t.samplesPerSec);
        if (t?.tokensPerSec != null) g(DEFS.tokens).set(t.tokensPerSec);
        if (t?.stepsPerSec != null) g(DEFS.steps).set(t.stepsPerSec);
      }
      return registry.metrics();
    },
  };
}
