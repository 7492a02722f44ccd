/**
 * dcgm-exporter's series and how each maps onto a `GpuSample` field: the one table that both the fleet
 * reader (Prometheus → samples) and the lab server's `--dcgm-names` exporter (samples → Prometheus) use.
 * Names, units and types are dcgm-exporter's (etc/default-counters.csv and etc/dcp-metrics-included.csv in
 * github.com/NVIDIA/dcgm-exporter): profiling (DCP) fields are ratios 0–1, utilization fields are %,
 * framebuffer is MiB, power W, energy a counter in mJ, clocks MHz, and DCP PCIe fields are gauges in bytes/s.
 */
import { CLOCK_EVENT_REASONS, type GpuSample, type HostSample } from './metrics.ts';

/** DCGM's clock event bits are NVML's (dcgm_fields.h DCGM_CLOCKS_EVENT_REASON_* = nvml.h nvmlClocksEventReason*). */
export function clockEventMask(names: readonly string[]): number {
  return CLOCK_EVENT_REASONS.filter((r) => names.includes(r.name)).reduce((m, r) => m + r.bit, 0);
}

/**
 * DCGM writes "blank" sentinels near 2^63 for a field the GPU does not support (dcgm-exporter's README shows
 * `DCGM_FI_DEV_MEMORY_TEMP … 9223372036854775794`): such a value is no reading.
 */
export const isDcgmBlank = (v: number): boolean => !Number.isFinite(v) || Math.abs(v) >= 9.2e18;

const MIB = 1024 * 1024;

/** A GpuSample field that a dcgm-exporter series fills. */
export type DcgmSampleField = keyof Pick<
  GpuSample,
  | 'gpuUtilPct'
  | 'memUtilPct'
  | 'smActivePct'
  | 'smOccupancyPct'
  | 'tensorActivePct'
  | 'dramActivePct'
  | 'memUsedBytes'
  | 'powerWatts'
  | 'smClockMhz'
  | 'pcieTxBytesPerSec'
  | 'pcieRxBytesPerSec'
  | 'temperatureC'
  | 'memTemperatureC'
  | 'powerLimitWatts'
>;

export interface DcgmSeries {
  /** The metric name dcgm-exporter exposes. */
  name: string;
  type: 'gauge' | 'counter';
  /** dcgm-exporter's help text (unit in parentheses). */
  help: string;
  /** The sample field it fills, or null for series the fleet reads on their own (energy, free memory, XID). */
  field: DcgmSampleField | null;
  /** Multiply the exported value by this to get the field's unit (e.g. a 0–1 ratio × 100 = %). */
  toField: number;
  /** True for profiling (DCP) fields: absent on consumer GPUs and off by default for some (SM activity). */
  profiling: boolean;
  /** False for fields dcgm-exporter leaves out unless its counters CSV lists them. */
  byDefault?: false;
}

export const DCGM_SERIES: readonly DcgmSeries[] = [
  {
    name: 'DCGM_FI_DEV_GPU_UTIL',
    type: 'gauge',
    help: 'GPU utilization (in %).',
    field: 'gpuUtilPct',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_MEM_COPY_UTIL',
    type: 'gauge',
    help: 'Memory utilization (in %).',
    field: 'memUtilPct',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
    type: 'gauge',
    help: 'Ratio of time the graphics engine is active.',
    field: null,
    toField: 100,
    profiling: true,
  },
  {
    name: 'DCGM_FI_PROF_SM_ACTIVE',
    type: 'gauge',
    help: 'The ratio of cycles an SM has at least 1 warp assigned.',
    field: 'smActivePct',
    toField: 100,
    profiling: true,
    byDefault: false,
  },
  {
    name: 'DCGM_FI_PROF_SM_OCCUPANCY',
    type: 'gauge',
    help: 'The ratio of number of warps resident on an SM.',
    field: 'smOccupancyPct',
    toField: 100,
    profiling: true,
    byDefault: false,
  },
  {
    name: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE',
    type: 'gauge',
    help: 'Ratio of cycles the tensor (HMMA) pipe is active.',
    field: 'tensorActivePct',
    toField: 100,
    profiling: true,
  },
  {
    name: 'DCGM_FI_PROF_DRAM_ACTIVE',
    type: 'gauge',
    help: 'Ratio of cycles the device memory interface is active sending or receiving data.',
    field: 'dramActivePct',
    toField: 100,
    profiling: true,
  },
  {
    name: 'DCGM_FI_DEV_FB_USED',
    type: 'gauge',
    help: 'Framebuffer memory used (in MiB).',
    field: 'memUsedBytes',
    toField: MIB,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_FB_FREE',
    type: 'gauge',
    help: 'Framebuffer memory free (in MiB).',
    field: null,
    toField: MIB,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_POWER_USAGE',
    type: 'gauge',
    help: 'Power draw (in W).',
    field: 'powerWatts',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
    type: 'counter',
    help: 'Total energy consumption since boot (in mJ).',
    field: null,
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_SM_CLOCK',
    type: 'gauge',
    help: 'SM clock frequency (in MHz).',
    field: 'smClockMhz',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_GPU_TEMP',
    type: 'gauge',
    help: 'GPU temperature (in C).',
    field: 'temperatureC',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_PROF_PCIE_TX_BYTES',
    type: 'gauge',
    help: 'The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in bytes per second.',
    field: 'pcieTxBytesPerSec',
    toField: 1,
    profiling: true,
  },
  {
    name: 'DCGM_FI_PROF_PCIE_RX_BYTES',
    type: 'gauge',
    help: 'The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes per second.',
    field: 'pcieRxBytesPerSec',
    toField: 1,
    profiling: true,
  },
  {
    name: 'DCGM_FI_DEV_MEMORY_TEMP',
    type: 'gauge',
    help: 'Memory temperature (in C).',
    field: 'memTemperatureC',
    toField: 1,
    profiling: false,
  },
  {
    name: 'DCGM_FI_DEV_POWER_MGMT_LIMIT',
    type: 'gauge',
    help: 'Current power limit for the device (in W).',
    field: 'powerLimitWatts',
    toField: 1,
    profiling: false,
    byDefault: false,
  },
  {
    name: 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
    type: 'gauge',
    help: 'Current clock event reasons (bitmask of DCGM_CLOCKS_EVENT_REASON_*).',
    field: null,
    toField: 1,
    profiling: false,
    byDefault: false,
  },
  {
    name: 'DCGM_FI_DEV_XID_ERRORS',
    type: 'gauge',
    help: 'Value of the last XID error encountered.',
    field: null,
    toField: 1,
    profiling: false,
  },
];

/**
 * Series dcgm-exporter named differently before 4.0 (its 4.0.0 release, #437, moved to DCGM 4's field names): the
 * 4.x name → the 3.x name. Only the clock event mask was renamed among the series the fleet reads (checked
 * against the history of etc/default-counters.csv and etc/dcp-metrics-included.csv); a fleet can run both, so the
 * reader takes whichever a GPU sends, the 4.x one first.
 */
export const DCGM_NAMES_BEFORE_4: Readonly<Record<string, string>> = {
  DCGM_FI_DEV_CLOCKS_EVENT_REASONS: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS',
};

/**
 * The labels that say who a GPU belongs to. dcgm-exporter names the host `Hostname` until May 2026 and
 * `hostname` after (its #655). dcgm-exporter puts the workload's `pod`/`namespace`/`container` on a GPU's series;
 * when the scrape sets those labels itself (a Kubernetes ServiceMonitor: the exporter's own pod), Prometheus keeps
 * the scrape's and renames the exporter's to `exported_*` (honor_labels false). server/fleet/owner.ts picks one set.
 */
export const OWNER_LABELS = {
  hostname: ['hostname', 'Hostname'],
  /** The workload, as Prometheus renames it when the scrape target has labels of the same names. */
  exported: { pod: 'exported_pod', namespace: 'exported_namespace', container: 'exported_container' },
  /** The workload when nothing renamed it, or the scrape target's own (the exporter's pod) when something did. */
  plain: { pod: 'pod', namespace: 'namespace', container: 'container' },
  /** Slurm/HPC job id (dcgm-exporter's `--hpc-job-mapping-dir`). */
  job: ['hpc_job'],
} as const;

/** The first label of `names` that `labels` has. */
export function labelOf(labels: Record<string, string>, names: readonly string[]): string | null {
  for (const n of names) if (labels[n]) return labels[n];
  return null;
}

/** Identity labels of one GPU in dcgm-exporter's form. */
export interface DcgmGpuLabels {
  gpu: number;
  uuid: string;
  modelName: string;
  hostname: string;
  /** Extra labels, e.g. `{ pod: 'train-0', namespace: 'research' }` or `{ simulated: 'true' }`. */
  extra?: Record<string, string>;
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** `{gpu="0",UUID="…",device="nvidia0",modelName="…",hostname="…",…}` as dcgm-exporter writes it. */
export function dcgmLabelText(l: DcgmGpuLabels): string {
  const pairs: [string, string][] = [
    ['gpu', String(l.gpu)],
    ['UUID', l.uuid],
    ['device', `nvidia${l.gpu}`],
    ['modelName', l.modelName],
    ['hostname', l.hostname],
    ...Object.entries(l.extra ?? {}),
  ];
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

/**
 * The value each dcgm-exporter series would carry for `sample`, in dcgm-exporter's units, or null where the
 * sample has no reading (no series is written then: a missing reading is never exported as 0). Energy is a
 * counter the caller integrates (`energyMj`); free framebuffer needs both used and total.
 */
export function dcgmValues(sample: GpuSample, energyMj: number | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of DCGM_SERIES) {
    if (s.field === null) continue;
    const v = sample[s.field];
    if (v !== null && v !== undefined) out.set(s.name, v / s.toField);
  }
  if (sample.gpuUtilPct !== null && sample.smActivePct !== null)
    out.set('DCGM_FI_PROF_GR_ENGINE_ACTIVE', sample.gpuUtilPct / 100);
  if (sample.memUsedBytes !== null && sample.memTotalBytes !== null)
    out.set('DCGM_FI_DEV_FB_FREE', Math.max(0, sample.memTotalBytes - sample.memUsedBytes) / MIB);
  if (energyMj !== null) out.set('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', energyMj);
  if (sample.clockEventReasons !== null)
    out.set('DCGM_FI_DEV_CLOCKS_EVENT_REASONS', clockEventMask(sample.clockEventReasons));
  return out;
}

/**
 * dcgm-exporter's exposition text for one tick (Prometheus text format 0.0.4: `# HELP`, `# TYPE`, then one line
 * per GPU), so a Prometheus can scrape a lab server as if it were dcgm-exporter. A reading the sample lacks
 * writes no line. `energyMj[i]` is GPU i's energy counter; `extra` labels go on every line (e.g.
 * `{ simulated: 'true' }`).
 */
export function dcgmExposition(
  gpus: readonly GpuSample[],
  hostname: string,
  energyMj: readonly (number | null)[],
  extra: Record<string, string> = {},
): string {
  const perGpu = gpus.map((g, i) => ({
    labels: dcgmLabelText({ gpu: g.index, uuid: g.uuid, modelName: g.name, hostname, extra }),
    values: g.error === null ? dcgmValues(g, energyMj[i] ?? null) : new Map<string, number>(),
  }));
  const out: string[] = [];
  for (const s of DCGM_SERIES) {
    const lines = perGpu.flatMap((g) => {
      const v = g.values.get(s.name);
      return v === undefined ? [] : [`${s.name}${g.labels} ${Number.isInteger(v) ? v : Number(v.toPrecision(12))}`];
    });
    if (!lines.length) continue;
    out.push(`# HELP ${s.name} ${s.help}`, `# TYPE ${s.name} ${s.type}`, ...lines);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/**
 * node-exporter's series for the host beside the GPUs (per-core idle CPU seconds as a counter, load, memory and
 * `node_uname_info`), so that a fleet read through Prometheus has the host CPU that decides data starvation.
 * `idleSeconds[c]` is core c's idle time since the server started.
 */
export function nodeExposition(
  host: HostSample,
  hostname: string,
  idleSeconds: readonly number[],
  extra: Record<string, string> = {},
): string {
  const more = Object.entries(extra)
    .map(([k, v]) => `,${k}="${escapeLabel(v)}"`)
    .join('');
  const lines = [
    '# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.',
    '# TYPE node_cpu_seconds_total counter',
    ...idleSeconds.map((s, c) => `node_cpu_seconds_total{cpu="${c}",mode="idle"${more}} ${Number(s.toFixed(3))}`),
    '# HELP node_load1 1m load average.',
    '# TYPE node_load1 gauge',
    `node_load1{${more.slice(1)}} ${host.load.avg1}`,
    '# HELP node_load5 5m load average.',
    '# TYPE node_load5 gauge',
    `node_load5{${more.slice(1)}} ${host.load.avg5}`,
    '# HELP node_load15 15m load average.',
    '# TYPE node_load15 gauge',
    `node_load15{${more.slice(1)}} ${host.load.avg15}`,
    '# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.',
    '# TYPE node_memory_MemTotal_bytes gauge',
    `node_memory_MemTotal_bytes{${more.slice(1)}} ${host.mem.totalBytes}`,
    '# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.',
    '# TYPE node_memory_MemAvailable_bytes gauge',
    `node_memory_MemAvailable_bytes{${more.slice(1)}} ${host.mem.availableBytes}`,
    '# HELP node_uname_info Labeled system information as provided by the uname system call.',
    '# TYPE node_uname_info gauge',
    `node_uname_info{nodename="${escapeLabel(hostname)}"${more}} 1`,
  ];
  return `${lines.join('\n')}\n`;
}
