/**
 * NVML struct layouts, as koffi types (checked against nvml.h by test/server/nvml-real.test.ts),
 * plus the constants the binding decodes: clock event reason bits and GPM metric ids.
 * The binding passes Buffers and reads fields at the offsets computed here, so no JS object is
 * allocated per call.
 */
import koffi from 'koffi';

/** nvmlUtilization_t: {unsigned gpu; unsigned memory} in percent. */
export const Utilization = koffi.struct({ gpu: 'uint32_t', memory: 'uint32_t' });
/** nvmlMemory_t (v1): bytes. */
export const Memory = koffi.struct({ total: 'uint64_t', free: 'uint64_t', used: 'uint64_t' });
/** nvmlMemory_v2_t: adds a version (in) and the driver/firmware reserved bytes. */
export const MemoryV2 = koffi.struct({
  version: 'uint32_t',
  total: 'uint64_t',
  reserved: 'uint64_t',
  free: 'uint64_t',
  used: 'uint64_t',
});
/** nvmlProcessInfo_v1_t, used by the unversioned process-list call. */
export const ProcessInfoV1 = koffi.struct({ pid: 'uint32_t', usedGpuMemory: 'uint64_t' });
/** nvmlProcessInfo_t (= v2), used by the _v2 and _v3 process-list calls. */
export const ProcessInfo = koffi.struct({
  pid: 'uint32_t',
  usedGpuMemory: 'uint64_t',
  gpuInstanceId: 'uint32_t',
  computeInstanceId: 'uint32_t',
});
/** nvmlGpmSupport_t: {version = 1 (in); isSupportedDevice (out)}. */
export const GpmSupport = koffi.struct({ version: 'uint32_t', isSupportedDevice: 'uint32_t' });
/** nvmlGpmMetric_t: metricId (in), nvmlReturn and value (out), name pointers (out, may be NULL). */
export const GpmMetric = koffi.struct({
  metricId: 'uint32_t',
  nvmlReturn: 'int',
  value: 'double',
  metricInfo: koffi.struct({ shortName: 'void *', longName: 'void *', unit: 'void *' }),
});
/**
 * nvmlGpmMetricsGet_t's fixed head; `metrics[]` follows at `GPM_METRICS_OFFSET`. NVML_GPM_METRIC_MAX
 * differs between headers (98, 210, 333), but NVML reads only `numMetrics` entries, so the buffer
 * holds just the ones asked for.
 */
export const GpmMetricsGetHead = koffi.struct({
  version: 'uint32_t',
  numMetrics: 'uint32_t',
  sample1: 'void *',
  sample2: 'void *',
  metrics: koffi.array(GpmMetric, 1),
});

/** Field offsets the binding reads, derived from the koffi layouts above. */
export const OFF = {
  memV2Version: koffi.offsetof(MemoryV2, 'version'),
  memV2Total: koffi.offsetof(MemoryV2, 'total'),
  memV2Reserved: koffi.offsetof(MemoryV2, 'reserved'),
  memV2Free: koffi.offsetof(MemoryV2, 'free'),
  memV2Used: koffi.offsetof(MemoryV2, 'used'),
  memTotal: koffi.offsetof(Memory, 'total'),
  memFree: koffi.offsetof(Memory, 'free'),
  memUsed: koffi.offsetof(Memory, 'used'),
  procPid: koffi.offsetof(ProcessInfo, 'pid'),
  procMem: koffi.offsetof(ProcessInfo, 'usedGpuMemory'),
  procV1Pid: koffi.offsetof(ProcessInfoV1, 'pid'),
  procV1Mem: koffi.offsetof(ProcessInfoV1, 'usedGpuMemory'),
  gpmSample1: koffi.offsetof(GpmMetricsGetHead, 'sample1'),
  gpmSample2: koffi.offsetof(GpmMetricsGetHead, 'sample2'),
  gpmMetrics: koffi.offsetof(GpmMetricsGetHead, 'metrics'),
  metricId: koffi.offsetof(GpmMetric, 'metricId'),
  metricReturn: koffi.offsetof(GpmMetric, 'nvmlReturn'),
  metricValue: koffi.offsetof(GpmMetric, 'value'),
} as const;

/** Sizes of the structs, for buffers and version words. */
export const SIZE = {
  utilization: koffi.sizeof(Utilization),
  memory: koffi.sizeof(Memory),
  memoryV2: koffi.sizeof(MemoryV2),
  processInfo: koffi.sizeof(ProcessInfo),
  processInfoV1: koffi.sizeof(ProcessInfoV1),
  gpmSupport: koffi.sizeof(GpmSupport),
  gpmMetric: koffi.sizeof(GpmMetric),
} as const;

/** NVML_STRUCT_VERSION(Memory, 2) = sizeof(nvmlMemory_v2_t) | 2 << 24 = 0x02000028. */
export const MEMORY_V2_VERSION = (SIZE.memoryV2 | (2 << 24)) >>> 0;
/** NVML_GPM_METRICS_GET_VERSION and NVML_GPM_SUPPORT_VERSION. */
export const GPM_VERSION = 1;
/** usedGpuMemory when the driver cannot say (NVML_VALUE_NOT_AVAILABLE, all ones). */
export const VALUE_NOT_AVAILABLE = 0xffff_ffff_ffff_ffffn;

/** nvmlClockType_t. */
export const CLOCK = { GRAPHICS: 0, SM: 1, MEM: 2, VIDEO: 3 } as const;
/** nvmlPcieUtilCounter_t. */
export const PCIE = { TX: 0, RX: 1 } as const;
/** NVML_TEMPERATURE_GPU. */
export const TEMPERATURE_GPU = 0;

/** Clock event (throttle) reason bits, in nvml.h order. */
export const CLOCK_EVENT_REASONS: readonly (readonly [bigint, string])[] = [
  [0x1n, 'GpuIdle'],
  [0x2n, 'ApplicationsClocksSetting'],
  [0x4n, 'SwPowerCap'],
  [0x8n, 'HwSlowdown'],
  [0x10n, 'SyncBoost'],
  [0x20n, 'SwThermalSlowdown'],
  [0x40n, 'HwThermalSlowdown'],
  [0x80n, 'HwPowerBrakeSlowdown'],
  [0x100n, 'DisplayClockSetting'],
];

/** Bitmasks decoded so far (a GPU shows a handful of distinct masks, and each tick asks again). */
const decoded = new Map<bigint, readonly string[]>();

/**
 * Decodes a reason bitmask to names; unknown bits become "Unknown(0x…)". Returns a fresh array
 * (callers may keep or change it). @example decodeReasons(0x24n) // ['SwPowerCap', 'SwThermalSlowdown']
 */
export function decodeReasons(bits: bigint): string[] {
  let names = decoded.get(bits);
  if (names === undefined) {
    names = decodeBits(bits);
    if (decoded.size < 1024) decoded.set(bits, names);
  }
  return [...names];
}

function decodeBits(bits: bigint): string[] {
  const names = CLOCK_EVENT_REASONS.filter(([bit]) => (bits & bit) !== 0n).map(([, name]) => name);
  const known = CLOCK_EVENT_REASONS.reduce((m, [bit]) => m | bit, 0n);
  const rest = bits & ~known;
  if (rest !== 0n) names.push(`Unknown(0x${rest.toString(16)})`);
  return names;
}

/** GPM metric ids the lab reads (nvmlGpmMetricId_t). */
export const GPM_METRIC = {
  SM_UTIL: 2,
  SM_OCCUPANCY: 3,
  ANY_TENSOR_UTIL: 5,
  DRAM_BW_UTIL: 10,
  FP64_UTIL: 11,
  FP32_UTIL: 12,
  FP16_UTIL: 13,
} as const;
