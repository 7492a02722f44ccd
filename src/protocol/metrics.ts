/**
 * The wire format between the lab server and the browser: one `StreamMessage` per sampling tick.
 * Shared by `server/` (which produces it and validates it in its tests) and the site. The lab page does not
 * run these schemas on every tick: it checks the message's shape (`looksLikeMessage`) and skips a bad line,
 * which keeps zod out of the lab page's JavaScript.
 * Units are in field names; a metric the GPU or source cannot give is `null` and `nullReasons`
 * says why, keyed by field name: a missing metric is never reported as 0.
 */
import { z } from 'zod';
import { GPM_FIELDS } from './fields.ts';

export { GPM_FIELDS };

const pct = z.number().min(0).max(100);
const nonNeg = z.number().min(0);

/** Why metrics are null, keyed by the field name (e.g. `{ smActivePct: 'GPM needs Hopper or newer' }`). */
export const NullReasonsSchema = z.record(z.string(), z.string());
export type NullReasons = z.output<typeof NullReasonsSchema>;

/** One process holding a GPU context. */
export const GpuProcessSchema = z.object({
  /** Operating-system process id. */
  pid: z.number().int().nonnegative(),
  /** Short process name from /proc/<pid>/comm, or null when it cannot be read (another container, gone). */
  name: z.string().nullable(),
  /** GPU memory this process holds, or null when the driver does not say (WDDM, MIG without access). */
  usedGpuMemBytes: nonNeg.nullable(),
});
export type GpuProcess = z.output<typeof GpuProcessSchema>;

/** Static facts about one GPU, served by `/api/devices`. */
export const DeviceInfoSchema = z.object({
  /** NVML index (0-based), stable for the life of the server. */
  index: z.number().int().nonnegative(),
  /** Marketing name, e.g. "NVIDIA H100 80GB HBM3". */
  name: z.string(),
  /** `GPU-…` UUID, stable across reboots. */
  uuid: z.string(),
  /** Total device memory in bytes, or null when unknown. */
  memTotalBytes: nonNeg.nullable(),
  /** Maximum SM clock in MHz, or null. */
  smClockMaxMhz: nonNeg.nullable(),
  /** Maximum memory clock in MHz, or null. */
  memClockMaxMhz: nonNeg.nullable(),
  /** Whether GPM (SM activity, occupancy, tensor, DRAM) can be read: Hopper or newer. */
  gpmSupported: z.boolean(),
  /**
   * A fleet GPU (`--source prometheus:`) whose series carry `simulated="true"`: the lab server behind it simulates
   * it. Absent for this server's own devices (the source's `simulated` says it for those).
   */
  simulated: z.boolean().optional(),
});
export type DeviceInfo = z.output<typeof DeviceInfoSchema>;

/** One GPU at one sampling tick. */
export const GpuSampleSchema = z.object({
  /** NVML index (0-based). */
  index: z.number().int().nonnegative(),
  /** `GPU-…` UUID. */
  uuid: z.string(),
  /** Marketing name. */
  name: z.string(),
  /** Set when the GPU cannot be read at all (e.g. "GPU is lost (NVML 15)"); every metric is then null. */
  error: z.string().nullable(),
  /** NVML GPU-Util: % of the sample period in which any kernel ran. Says nothing about how many SMs. */
  gpuUtilPct: pct.nullable(),
  /** NVML memory utilization: % of time device memory was read or written (not capacity). */
  memUtilPct: pct.nullable(),
  /** Memory allocated by all contexts, in bytes. */
  memUsedBytes: nonNeg.nullable(),
  /** Total device memory, in bytes. */
  memTotalBytes: nonNeg.nullable(),
  /** Memory reserved by driver and firmware (MemoryInfo v2), or null on older drivers. */
  memReservedBytes: nonNeg.nullable(),
  /** Board power draw in watts (a 1 s average on Ampere and newer). */
  powerWatts: nonNeg.nullable(),
  /** The enforced power limit in watts. */
  powerLimitWatts: nonNeg.nullable(),
  /** GPU core temperature in °C. */
  temperatureC: z.number().nullable(),
  /** Current SM clock in MHz. */
  smClockMhz: nonNeg.nullable(),
  /** Maximum SM clock in MHz. */
  smClockMaxMhz: nonNeg.nullable(),
  /** Current memory clock in MHz. */
  memClockMhz: nonNeg.nullable(),
  /** Maximum memory clock in MHz. */
  memClockMaxMhz: nonNeg.nullable(),
  /** PCIe transmit (GPU → host) in bytes per second, over NVML's 20 ms window. */
  pcieTxBytesPerSec: nonNeg.nullable(),
  /** PCIe receive (host → GPU) in bytes per second. */
  pcieRxBytesPerSec: nonNeg.nullable(),
  /**
   * Active clock event (throttle) reasons by their NVML name (see `CLOCK_EVENT_REASONS`), e.g. ["SwPowerCap"];
   * [] means clocks are as high as allowed.
   */
  clockEventReasons: z.array(z.string()).nullable(),
  /**
   * Memory (HBM) temperature in °C where the GPU reports one (data-center parts; GeForce GDDR6X does not).
   * Optional: sources that do not know the field leave it out, which reads as null.
   */
  memTemperatureC: z.number().nullable().optional(),
  /** Processes with a compute context on this GPU. */
  processes: z.array(GpuProcessSchema).nullable(),
  /** GPM SM utilization: % of SMs busy (warps resident), averaged over the interval. */
  smActivePct: pct.nullable(),
  /** GPM SM occupancy: resident warps as % of the maximum. */
  smOccupancyPct: pct.nullable(),
  /** GPM any-tensor-pipe utilization, %. */
  tensorActivePct: pct.nullable(),
  /** GPM DRAM bandwidth utilization, % of theoretical peak (about 80% is the practical maximum). */
  dramActivePct: pct.nullable(),
  /** GPM FP16 (non-tensor) pipe utilization, %. */
  fp16ActivePct: pct.nullable(),
  /** GPM FP32 (FMA) pipe utilization, %. */
  fp32ActivePct: pct.nullable(),
  /** GPM FP64 pipe utilization, %. */
  fp64ActivePct: pct.nullable(),
  /** Why each null metric is null, keyed by field name. */
  nullReasons: NullReasonsSchema,
});
export type GpuSample = z.output<typeof GpuSampleSchema>;

/** The host beside the GPUs: half of every data-loader diagnosis. */
export const HostSampleSchema = z.object({
  /** Overall CPU utilization since the previous sample, %. */
  cpuPct: pct,
  /** Utilization per logical core, %; a pegged core reads ~100. */
  perCorePct: z.array(pct),
  /** Load averages over 1, 5 and 15 minutes (runnable processes). */
  load: z.object({ avg1: nonNeg, avg5: nonNeg, avg15: nonNeg }),
  /** Host memory in bytes. */
  mem: z.object({ totalBytes: nonNeg, usedBytes: nonNeg, availableBytes: nonNeg }),
});
export type HostSample = z.output<typeof HostSampleSchema>;

/** What a training loop POSTs to `/api/throughput`: at least one rate. */
export const ThroughputReportSchema = z
  .object({
    /** Training samples (e.g. images) per second. */
    samplesPerSec: nonNeg.max(1e12).optional(),
    /** Tokens per second. */
    tokensPerSec: nonNeg.max(1e15).optional(),
    /** Optimizer steps per second. */
    stepsPerSec: nonNeg.max(1e6).optional(),
    /** Model FLOPs per sample or per token, to let labs compute MFU. */
    flopsPerUnit: nonNeg.max(1e18).optional(),
    /**
     * Share of wall time the loop waited for the next batch (0–1), from a timer around the DataLoader's
     * `next()`: the reading that decides data starvation without host CPU.
     */
    dataWaitFraction: z.number().min(0).max(1).optional(),
    /** Free-form label for the run, e.g. "resnet50-bs256". */
    label: z.string().max(80).optional(),
  })
  .strict()
  .refine(
    (r) => r.samplesPerSec !== undefined || r.tokensPerSec !== undefined || r.stepsPerSec !== undefined,
    'Report at least one of samplesPerSec, tokensPerSec or stepsPerSec.',
  );
export type ThroughputReport = z.output<typeof ThroughputReportSchema>;

/** The latest throughput, as it joins the stream. */
export const ThroughputSchema = z.object({
  samplesPerSec: nonNeg.nullable(),
  tokensPerSec: nonNeg.nullable(),
  stepsPerSec: nonNeg.nullable(),
  flopsPerUnit: nonNeg.nullable(),
  /** Share of wall time the loop waited for data (0–1); optional: absent reads as null (not reported). */
  dataWaitFraction: z.number().min(0).max(1).nullable().optional(),
  label: z.string().nullable(),
  /** When it was reported (server clock, ms since epoch). */
  reportedAtMs: nonNeg,
  /** True when the simulator made it up rather than a training loop reporting it. */
  simulated: z.boolean(),
});
export type Throughput = z.output<typeof ThroughputSchema>;

/** One sampling tick: every device, the host and the latest throughput. */
export const StreamMessageSchema = z.object({
  /** Tick number within one server run; the SSE event id is `<bootId>-<seq>`, used to resume with Last-Event-ID. */
  seq: z.number().int().nonnegative(),
  /** When the sample was taken, ms since epoch. */
  sampledAtMs: nonNeg,
  /** The source that produced it: "nvml", "sim:<scenario>" or "replay:<file>". */
  source: z.string(),
  /** True for anything that is not a live reading of this machine's GPUs. */
  simulated: z.boolean(),
  /** Why the source is what it is, e.g. "NVIDIA driver not loaded (NVML 9 …)"; null for live NVML. */
  reason: z.string().nullable(),
  gpus: z.array(GpuSampleSchema),
  host: HostSampleSchema.nullable(),
  throughput: ThroughputSchema.nullable(),
});
export type StreamMessage = z.output<typeof StreamMessageSchema>;

/** `GET /api/health`: no token needed. */
export const HealthSchema = z.object({
  ok: z.literal(true),
  version: z.string(),
  source: z.string(),
  simulated: z.boolean(),
  reason: z.string().nullable(),
  /** `--record`: the file, its size, rotations, and why recording stopped (null while it works); null when not recording. */
  recording: z
    .object({
      file: z.string(),
      bytes: z.number(),
      rotations: z.number(),
      error: z.string().nullable(),
    })
    .nullable()
    .optional(),
});
export type Health = z.output<typeof HealthSchema>;

/** Field names of GPU metrics that may be null (handy for tables and for `nullReasons`). */
export const GPU_METRIC_FIELDS = [
  'gpuUtilPct',
  'memUtilPct',
  'memUsedBytes',
  'memTotalBytes',
  'memReservedBytes',
  'powerWatts',
  'powerLimitWatts',
  'temperatureC',
  'smClockMhz',
  'smClockMaxMhz',
  'memClockMhz',
  'memClockMaxMhz',
  'pcieTxBytesPerSec',
  'pcieRxBytesPerSec',
  'clockEventReasons',
  'processes',
  ...GPM_FIELDS,
] as const satisfies readonly (keyof GpuSample)[];
export type GpuMetricField = (typeof GPU_METRIC_FIELDS)[number];

/** A GPU sample with its identity and every metric null (the caller fills what it reads, and says why the rest is null). */
export function emptyGpuSample(id: { index: number; uuid: string; name: string }): GpuSample {
  const sample = { ...id, error: null, nullReasons: {} } as GpuSample;
  for (const f of GPU_METRIC_FIELDS) (sample as Record<GpuMetricField, null>)[f] = null;
  return sample;
}

/** One clock event reason: its NVML bit and name, and the names nvidia-smi and DCGM print for it. */
export interface ClockEventReason {
  /** Bit in `nvmlDeviceGetCurrentClocksEventReasons` and `DCGM_FI_DEV_CLOCKS_EVENT_REASONS`. */
  bit: number;
  /** NVML name without the prefix, as `clockEventReasons` carries it. */
  name: string;
  /** The label in `nvidia-smi -q -d PERFORMANCE`. */
  smiLabel: string;
  /** The field in `nvidia-smi --query-gpu=clocks_event_reasons.<field>`. */
  smiField: string;
  /** True when the reason holds the clock below what the workload asks for (GpuIdle does not). */
  limiting: boolean;
}

/** Every clock event reason NVML and nvidia-smi name (nvml.h `nvmlClocksEventReason*`), in bit order. */
export const CLOCK_EVENT_REASONS: readonly ClockEventReason[] = [
  { bit: 0x1, name: 'GpuIdle', smiLabel: 'Idle', smiField: 'gpu_idle', limiting: false },
  {
    bit: 0x2,
    name: 'ApplicationsClocksSetting',
    smiLabel: 'Applications Clocks Setting',
    smiField: 'applications_clocks_setting',
    limiting: true,
  },
  { bit: 0x4, name: 'SwPowerCap', smiLabel: 'SW Power Cap', smiField: 'sw_power_cap', limiting: true },
  { bit: 0x8, name: 'HwSlowdown', smiLabel: 'HW Slowdown', smiField: 'hw_slowdown', limiting: true },
  { bit: 0x10, name: 'SyncBoost', smiLabel: 'Sync Boost', smiField: 'sync_boost', limiting: true },
  {
    bit: 0x20,
    name: 'SwThermalSlowdown',
    smiLabel: 'SW Thermal Slowdown',
    smiField: 'sw_thermal_slowdown',
    limiting: true,
  },
  {
    bit: 0x40,
    name: 'HwThermalSlowdown',
    smiLabel: 'HW Thermal Slowdown',
    smiField: 'hw_thermal_slowdown',
    limiting: true,
  },
  {
    bit: 0x80,
    name: 'HwPowerBrakeSlowdown',
    smiLabel: 'HW Power Brake Slowdown',
    smiField: 'hw_power_brake_slowdown',
    limiting: true,
  },
  {
    bit: 0x100,
    name: 'DisplayClockSetting',
    smiLabel: 'Display Clock Setting',
    smiField: 'display_clocks_setting',
    limiting: true,
  },
];

/**
 * NVML names of the reasons set in `mask`; bits NVML does not define become "Unknown(0x…)".
 * @example clockEventReasonsFromMask(0x84) // ['SwPowerCap', 'HwPowerBrakeSlowdown']
 */
export function clockEventReasonsFromMask(mask: number): string[] {
  if (!Number.isInteger(mask) || mask < 0)
    throw new Error(`A clock event reason mask is a non-negative integer, got ${mask}.`);
  const set = CLOCK_EVENT_REASONS.filter((r) => Math.floor(mask / r.bit) % 2 === 1);
  const unknown = mask - set.reduce((m, r) => m + r.bit, 0);
  const names = set.map((r) => r.name);
  if (unknown > 0) names.push(`Unknown(0x${unknown.toString(16)})`);
  return names;
}

/**
 * The NVML name for a label or field nvidia-smi prints ("HW Power Brake Slowdown", "sw_power_cap"), or the
 * name itself when it already is one; null when nothing matches.
 * @example clockEventReasonFromSmi('HW Power Brake Slowdown') // 'HwPowerBrakeSlowdown'
 */
export function clockEventReasonFromSmi(label: string): string | null {
  const t = label.trim().replace(/^clocks_(event|throttle)_reasons?\./, '');
  const r = CLOCK_EVENT_REASONS.find(
    (x) => x.name === t || x.smiLabel.toLowerCase() === t.toLowerCase() || x.smiField === t.toLowerCase(),
  );
  return r ? r.name : null;
}
