/**
 * `GET /metrics`: the latest tick in Prometheus text format (prom-client). Names follow Prometheus
 * conventions: a `saturate_` prefix, base units (bytes, watts, hertz, celsius), 0–1 `_ratio`s, and
 * labels `gpu` (index), `uuid` and `name`. A metric the GPU cannot give is left out, not set to 0.
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

/** A registry bound to a tick getter; `render()` returns the exposition text. */
export function createPrometheus(
  latest: () => StreamMessage | null,
  version: string,
): { contentType: string; render(): Promise<string> } {
  const registry = new Registry();
  const labels = ['gpu', 'uuid', 'name'];
  const gauges = GPU_GAUGES.map(([name, help, field, scale]) => ({
    gauge: new Gauge({ name: `saturate_${name}`, help, labelNames: labels, registers: [registry] }),
    field,
    scale,
  }));
  const reasons = new Gauge({
    name: 'saturate_gpu_clock_event_reason',
    help: 'Active clock event (throttle) reasons, 1 when active.',
    labelNames: [...labels, 'reason'],
    registers: [registry],
  });
  const lost = new Gauge({
    name: 'saturate_gpu_lost',
    help: '1 when the GPU cannot be read (e.g. fell off the bus).',
    labelNames: labels,
    registers: [registry],
  });
  const cpu = new Gauge({
    name: 'saturate_host_cpu_utilization_ratio',
    help: 'Host CPU utilization, all cores.',
    registers: [registry],
  });
  const core = new Gauge({
    name: 'saturate_host_core_utilization_ratio',
    help: 'Host CPU utilization per logical core.',
    labelNames: ['core'],
    registers: [registry],
  });
  const memUsed = new Gauge({
    name: 'saturate_host_memory_used_bytes',
    help: 'Host memory in use.',
    registers: [registry],
  });
  const load1 = new Gauge({ name: 'saturate_host_load1', help: 'Host 1-minute load average.', registers: [registry] });
  const rates = {
    samples: new Gauge({
      name: 'saturate_training_samples_per_second',
      help: 'Training samples per second (reported or simulated).',
      registers: [registry],
    }),
    tokens: new Gauge({
      name: 'saturate_training_tokens_per_second',
      help: 'Training tokens per second (reported or simulated).',
      registers: [registry],
    }),
    steps: new Gauge({
      name: 'saturate_training_steps_per_second',
      help: 'Optimizer steps per second (reported or simulated).',
      registers: [registry],
    }),
  };
  const info = new Gauge({
    name: 'saturate_source_info',
    help: 'The metric source; simulated="true" for anything not live.',
    labelNames: ['source', 'simulated', 'version'],
    registers: [registry],
  });

  return {
    contentType: registry.contentType,
    async render() {
      registry.resetMetrics();
      const m = latest();
      if (m) {
        info.set({ source: m.source, simulated: String(m.simulated), version }, 1);
        for (const g of m.gpus) {
          const l = { gpu: String(g.index), uuid: g.uuid, name: g.name };
          lost.set(l, g.error === null ? 0 : 1);
          for (const { gauge, field, scale } of gauges) {
            const v = g[field];
            if (typeof v === 'number') gauge.set(l, v * scale);
          }
          for (const r of g.clockEventReasons ?? []) reasons.set({ ...l, reason: r }, 1);
        }
        if (m.host) {
          cpu.set(m.host.cpuPct / 100);
          m.host.perCorePct.forEach((p, i) => core.set({ core: String(i) }, p / 100));
          memUsed.set(m.host.mem.usedBytes);
          load1.set(m.host.load.avg1);
        }
        const t = m.throughput;
        if (t?.samplesPerSec != null) rates.samples.set(t.samplesPerSec);
        if (t?.tokensPerSec != null) rates.tokens.set(t.tokensPerSec);
        if (t?.stepsPerSec != null) rates.steps.set(t.stepsPerSec);
      }
      return registry.metrics();
    },
  };
}
