/**
 * The metrics a lab can chart, check and diagnose, flattened from the wire format: one `MetricPoint`
 * per sampling tick and GPU, with derived values (power as % of limit, clock as % of max, MFU).
 * Pure: no DOM. A metric the source cannot give stays `null` and keeps its reason; never 0.
 */
import type { GpuSample, StreamMessage } from '../../protocol/metrics.ts';
import { gpuSpecByName } from '../gpu-specs.ts';

/** Facts about one metric: label, unit, the range a reading can take. */
export interface MetricInfo {
  label: string;
  unit: string;
  min: number;
  max: number;
  /** Where a reading stops in practice (DRAM activity ~80%, fact 2.8); checks beyond it can never pass. */
  practicalMax?: number;
  /** Why it can be null, when the catalogue knows (shown when a check cannot be decided). */
  needs?: string;
}

const GPM = 'GPM (Hopper or newer; on older GPUs use DCGM profiling fields)';

/** Every metric a lab may name, by id. */
export const METRICS = {
  gpuUtilPct: { label: 'GPU-Util', unit: '%', min: 0, max: 100 },
  memUtilPct: { label: 'Memory busy (time)', unit: '%', min: 0, max: 100 },
  memUsedGiB: { label: 'GPU memory used', unit: 'GiB', min: 0, max: 2048 },
  powerWatts: { label: 'Power', unit: 'W', min: 0, max: 3000 },
  powerPctOfLimit: { label: 'Power (% of limit)', unit: '%', min: 0, max: 110 },
  powerLimitWatts: { label: 'Power limit (enforced)', unit: 'W', min: 0, max: 3000 },
  temperatureC: { label: 'Temperature', unit: '°C', min: -20, max: 130 },
  memTemperatureC: {
    label: 'Memory temperature',
    unit: '°C',
    min: -20,
    max: 130,
    needs: 'a GPU that reports memory (HBM) temperature; GeForce GDDR6X does not',
  },
  smClockMhz: { label: 'SM clock', unit: 'MHz', min: 0, max: 5000 },
  smClockPctOfMax: { label: 'SM clock (% of max)', unit: '%', min: 0, max: 100 },
  pcieRxGBps: { label: 'PCIe host→GPU', unit: 'GB/s', min: 0, max: 512 },
  smActivePct: { label: 'SM activity', unit: '%', min: 0, max: 100, needs: GPM },
  smOccupancyPct: { label: 'SM occupancy', unit: '%', min: 0, max: 100, needs: GPM },
  tensorActivePct: { label: 'Tensor activity', unit: '%', min: 0, max: 100, needs: GPM },
  dramActivePct: { label: 'DRAM activity', unit: '%', min: 0, max: 100, practicalMax: 80, needs: GPM },
  fp32ActivePct: { label: 'FP32 pipe activity', unit: '%', min: 0, max: 100, needs: GPM },
  powerCapActive: { label: 'SwPowerCap active', unit: '0/1', min: 0, max: 1, needs: 'clock event reasons' },
  thermalSlowdownActive: {
    label: 'Thermal slowdown active',
    unit: '0/1',
    min: 0,
    max: 1,
    needs: 'clock event reasons',
  },
  clockLimitedActive: {
    label: 'Any power/thermal clock limit active',
    unit: '0/1',
    min: 0,
    max: 1,
    needs: 'clock event reasons',
  },
  processCount: { label: 'Processes on the GPU', unit: '', min: 0, max: 1024 },
  cpuPct: { label: 'Host CPU (all cores)', unit: '%', min: 0, max: 100, needs: 'host metrics from the lab server' },
  maxCorePct: { label: 'Busiest host core', unit: '%', min: 0, max: 100, needs: 'host metrics from the lab server' },
  samplesPerSec: {
    label: 'Samples/s',
    unit: '/s',
    min: 0,
    max: 1e12,
    needs: 'a training loop reporting throughput (python/saturate_report.py)',
  },
  tokensPerSec: {
    label: 'Tokens/s',
    unit: '/s',
    min: 0,
    max: 1e15,
    needs: 'a training loop reporting throughput (python/saturate_report.py)',
  },
  dataWaitPct: {
    label: 'Waiting for data',
    unit: '%',
    min: 0,
    max: 100,
    needs: 'a training loop timing its DataLoader (python/saturate_report.py, Reporter.timed)',
  },
  stepsPerSec: {
    label: 'Steps/s',
    unit: '/s',
    min: 0,
    max: 1e6,
    needs: 'a training loop reporting throughput (python/saturate_report.py)',
  },
  mfuPct: {
    label: 'MFU',
    unit: '%',
    min: 0,
    max: 100,
    needs: 'tokens/s (or samples/s), FLOPs per token and the GPU’s dense peak',
  },
} as const satisfies Record<string, MetricInfo>;

export type MetricId = keyof typeof METRICS;
/** All metric ids, for validation messages. */
export const METRIC_IDS = Object.keys(METRICS) as MetricId[];

/** True for a known metric id. */
export function isMetricId(id: string): id is MetricId {
  return Object.hasOwn(METRICS, id);
}

/** One tick for one GPU: every metric (null when unavailable) and why it is null. */
export interface MetricPoint {
  /** Sample time, ms (epoch or simulated clock). */
  tMs: number;
  values: Record<MetricId, number | null>;
  /** Why a metric is null, when the source said. */
  why: Partial<Record<MetricId, string>>;
}

/** What derived metrics need beyond the stream. */
export interface MetricContext {
  /** Model FLOPs per token (or per sample) when the training loop does not report `flopsPerUnit`. */
  flopsPerUnit?: number;
  /** Dense peak of the GPU in TFLOP/s at the training precision; else looked up from the GPU's name. */
  peakTflops?: number;
}

/**
 * Dense BF16 Tensor Core peak in TFLOP/s, as the spec table (src/lib/gpu-specs.ts) gives it for exactly this model;
 * null for a model the table does not list (never a similar model's peak).
 * Always the dense figure: datasheets headline 2:4-sparse numbers that are twice as large (5.9). Not rounded, so
 * the MFU a lab text works out by hand (÷ 989.4) is the one the page shows.
 * @example densePeakTflops('NVIDIA H100 80GB HBM3') // 989.4
 */
export function densePeakTflops(gpuName: string): number | null {
  return gpuSpecByName(gpuName)?.peakTflops.bf16 ?? null;
}

const THERMAL = ['SwThermalSlowdown', 'HwThermalSlowdown'];
const LIMITING = ['SwPowerCap', 'HwSlowdown', 'HwPowerBrakeSlowdown', ...THERMAL];

const ratioPct = (a: number | null, b: number | null): number | null =>
  a === null || b === null || b <= 0 ? null : (100 * a) / b;

/** Each metric a GPU sample gives, and the sample field whose null reason it takes. */
const SOURCE_FIELDS = Object.entries({
  gpuUtilPct: 'gpuUtilPct',
  memUtilPct: 'memUtilPct',
  memUsedGiB: 'memUsedBytes',
  powerWatts: 'powerWatts',
  powerPctOfLimit: 'powerWatts',
  powerLimitWatts: 'powerLimitWatts',
  temperatureC: 'temperatureC',
  memTemperatureC: 'memTemperatureC',
  smClockMhz: 'smClockMhz',
  smClockPctOfMax: 'smClockMhz',
  pcieRxGBps: 'pcieRxBytesPerSec',
  smActivePct: 'smActivePct',
  smOccupancyPct: 'smOccupancyPct',
  tensorActivePct: 'tensorActivePct',
  dramActivePct: 'dramActivePct',
  fp32ActivePct: 'fp32ActivePct',
  powerCapActive: 'clockEventReasons',
  thermalSlowdownActive: 'clockEventReasons',
  clockLimitedActive: 'clockEventReasons',
  processCount: 'processes',
} satisfies Partial<Record<MetricId, keyof GpuSample>>) as [MetricId, keyof GpuSample][];

/** The GPU's own metrics and their null reasons. */
function gpuValues(g: GpuSample): {
  values: Partial<Record<MetricId, number | null>>;
  why: Partial<Record<MetricId, string>>;
} {
  const r = g.clockEventReasons;
  const values: Partial<Record<MetricId, number | null>> = {
    gpuUtilPct: g.gpuUtilPct,
    memUtilPct: g.memUtilPct,
    memUsedGiB: g.memUsedBytes === null ? null : g.memUsedBytes / 1024 ** 3,
    powerWatts: g.powerWatts,
    powerPctOfLimit: ratioPct(g.powerWatts, g.powerLimitWatts),
    powerLimitWatts: g.powerLimitWatts,
    temperatureC: g.temperatureC,
    memTemperatureC: g.memTemperatureC ?? null,
    smClockMhz: g.smClockMhz,
    smClockPctOfMax: ratioPct(g.smClockMhz, g.smClockMaxMhz),
    pcieRxGBps: g.pcieRxBytesPerSec === null ? null : g.pcieRxBytesPerSec / 1e9,
    smActivePct: g.smActivePct,
    smOccupancyPct: g.smOccupancyPct,
    tensorActivePct: g.tensorActivePct,
    dramActivePct: g.dramActivePct,
    fp32ActivePct: g.fp32ActivePct,
    powerCapActive: r === null ? null : Number(r.includes('SwPowerCap')),
    thermalSlowdownActive: r === null ? null : Number(r.some((x) => THERMAL.includes(x))),
    clockLimitedActive: r === null ? null : Number(r.some((x) => LIMITING.includes(x))),
    processCount: g.processes === null ? null : g.processes.length,
  };
  const why: Partial<Record<MetricId, string>> = {};
  for (const [id, field] of SOURCE_FIELDS) {
    if (values[id] === null) why[id] = g.error ?? g.nullReasons[field] ?? `${METRICS[id].label} not reported`;
  }
  return { values, why };
}

/** Every metric, null: where a point starts. */
const NO_VALUES = Object.fromEntries(METRIC_IDS.map((id) => [id, null])) as Record<MetricId, number | null>;

/**
 * Flattens one stream message for GPU `gpuIndex` (position in `gpus`) into a `MetricPoint`.
 * @example toPoint(msg, 0, { flopsPerUnit: 1.26e9 }).values.mfuPct
 */
export function toPoint(msg: StreamMessage, gpuIndex: number, ctx: MetricContext = {}): MetricPoint {
  const g = msg.gpus[gpuIndex];
  const why: Partial<Record<MetricId, string>> = {};
  const values: Record<MetricId, number | null> = { ...NO_VALUES };
  if (g) {
    const own = gpuValues(g);
    Object.assign(values, own.values);
    Object.assign(why, own.why);
  } else {
    for (const id of METRIC_IDS) why[id] = `no GPU ${gpuIndex} in this stream`;
  }
  const h = msg.host;
  values.cpuPct = h ? h.cpuPct : null;
  values.maxCorePct = h ? (h.perCorePct.length ? Math.max(...h.perCorePct) : h.cpuPct) : null;
  const t = msg.throughput;
  values.samplesPerSec = t?.samplesPerSec ?? null;
  values.tokensPerSec = t?.tokensPerSec ?? null;
  values.stepsPerSec = t?.stepsPerSec ?? null;
  values.dataWaitPct =
    t?.dataWaitFraction === undefined || t.dataWaitFraction === null ? null : 100 * t.dataWaitFraction;
  const rate = values.tokensPerSec ?? values.samplesPerSec;
  const flops = t?.flopsPerUnit ?? ctx.flopsPerUnit ?? null;
  const peak = ctx.peakTflops ?? (g ? densePeakTflops(g.name) : null);
  values.mfuPct = rate === null || flops === null || peak === null ? null : (100 * rate * flops) / (peak * 1e12);
  for (const id of ['cpuPct', 'maxCorePct'] as const)
    if (values[id] === null) why[id] = 'the source sends no host metrics';
  if (values.dataWaitPct === null) why.dataWaitPct = 'the training loop reports no data-wait time';
  for (const id of ['samplesPerSec', 'tokensPerSec', 'stepsPerSec'] as const)
    if (values[id] === null) why[id] = 'no throughput reported in the last 10 s';
  if (values.mfuPct === null) {
    why.mfuPct =
      rate === null
        ? 'no tokens/s or samples/s reported'
        : flops === null
          ? 'no FLOPs per token (flopsPerUnit) reported'
          : `${g?.name ?? 'this GPU'} is an unknown model (not in the GPU table, src/lib/gpu-specs.ts), so MFU has no dense peak to divide by`;
  }
  return { tMs: msg.sampledAtMs, values, why };
}

/** Formats a metric value with its unit, rounded for reading. @example formatMetric('gpuUtilPct', 96.6) // "97%" */
export function formatMetric(id: MetricId, v: number | null): string {
  if (v === null) return 'n/a';
  const info: MetricInfo = METRICS[id];
  if (info.unit === '0/1') return `${Math.round(v * 100)}% of the time`;
  const abs = Math.abs(v);
  const n =
    abs >= 10000
      ? Math.round(v).toLocaleString('en-US')
      : abs >= 100
        ? String(Math.round(v))
        : abs >= 10
          ? v.toFixed(0)
          : v.toFixed(1);
  return info.unit === '%' || info.unit.startsWith('/') ? `${n}${info.unit}` : info.unit ? `${n} ${info.unit}` : n;
}
