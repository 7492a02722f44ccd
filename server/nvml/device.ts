/**
 * The device model: turns NVML queries for one GPU into a protocol `GpuSample`, where every metric
 * NVML cannot give is null with its reason.
 *
 * State per GPU: its handle and static facts, metrics found unsupported (not asked again, logged
 * once), three GPM sample buffers (the new sample and the two before it, as bases), and `lost` once NVML says GPU_IS_LOST or
 * RESET_REQUIRED (then the GPU is reported lost without further queries while the others go on).
 * Lifecycle: `openDevice()` per index after nvmlInit; `release()` before nvmlShutdown.
 */
import { readFileSync } from 'node:fs';
import type { DeviceInfo, GpuSample, NullReasons } from '../../src/protocol/metrics.ts';
import type { DeviceHandle, GpmRequest, GpmSampleHandle, Nvml } from './binding.ts';
import { NVML, NvmlError, nvmlCodeName } from './errors.ts';
import { CLOCK, decodeReasons, GPM_METRIC, PCIE } from './structs.ts';
import { isStale } from '../../src/lib/stale.ts';

const GPM_IDS = [
  GPM_METRIC.SM_UTIL,
  GPM_METRIC.SM_OCCUPANCY,
  GPM_METRIC.ANY_TENSOR_UTIL,
  GPM_METRIC.DRAM_BW_UTIL,
  GPM_METRIC.FP16_UTIL,
  GPM_METRIC.FP32_UTIL,
  GPM_METRIC.FP64_UTIL,
] as const;
const GPM_FIELDS = [
  'smActivePct',
  'smOccupancyPct',
  'tensorActivePct',
  'dramActivePct',
  'fp16ActivePct',
  'fp32ActivePct',
  'fp64ActivePct',
] as const;
type GpmField = (typeof GPM_FIELDS)[number];
/** NVML wants GPM samples at least 100 ms apart. */
const GPM_MIN_GAP_MS = 100;
/**
 * Timer jitter a window may fall short by when no older sample exists (only on the second tick):
 * at `--interval 100` ticks come 94–106 ms apart.
 */
const GPM_JITTER_MS = 10;
/**
 * GPM buffers per GPU: the new sample and the two before it. At a 100 ms interval the previous
 * sample can be a few ms too recent; the one before it is then ~200 ms old, so every tick finds a
 * base at least GPM_MIN_GAP_MS back and no tick is left without SM, tensor or DRAM activity.
 */
const GPM_BUFFERS = 3;
/**
 * The enforced power limit and the process list change rarely (an admin's `nvidia-smi -pl`, a job
 * starting), and the process list is the costliest query: both are asked at most once a second and
 * reused by the ticks between.
 */
export const SLOW_QUERY_MS = 1000;

/** The answers of the slow queries, with the reasons for those that failed. */
interface SlowReadings {
  atMs: number;
  powerLimitWatts: number | null;
  processes: GpuSample['processes'];
  reasons: NullReasons;
}

/** One GPU as the model tracks it. */
export interface DeviceState {
  index: number;
  handle: DeviceHandle | null;
  info: DeviceInfo;
  /** Metric key → reason, for metrics NVML said it cannot give (asked once). */
  unsupported: Map<string, string>;
  gpm: {
    supported: boolean;
    reason: string | null;
    samples: GpmSampleHandle[];
    /** When each buffer was filled (ms), null while it holds no good sample. */
    takenAtMs: (number | null)[];
    /** The window of the last metrics read, ms (from the base sample to the new one). */
    lastWindowMs: number | null;
    refused: Map<number, string>;
    /** Prepared metric requests by "base,current" buffer pair; dropped when a metric is refused. */
    requests: Map<string, GpmRequest>;
  };
  lost: NvmlError | null;
  /** The last slow-query answers (see SLOW_QUERY_MS), null before the first tick. */
  slow: SlowReadings | null;
  /** Its queries bound to its handle, made on the first read. */
  queries?: DeviceQueries;
}

/** Logs each unsupported-metric reason once per process (nvitop's habit), to stderr. */
const logged = new Set<string>();
function logOnce(key: string, message: string, log: (m: string) => void): void {
  if (logged.has(key)) return;
  logged.add(key);
  log(message);
}

const isFatal = (e: unknown): e is NvmlError =>
  e instanceof NvmlError && (e.code === NVML.GPU_IS_LOST || e.code === NVML.RESET_REQUIRED);
const isPermanent = (e: unknown): e is NvmlError =>
  e instanceof NvmlError &&
  (e.code === NVML.NOT_SUPPORTED || e.code === NVML.FUNCTION_NOT_FOUND || e.code === NVML.NO_PERMISSION);

/** Reads static facts and prepares GPM for GPU `index`. Never throws: a GPU that cannot be opened is reported lost. */
export function openDevice(nvml: Nvml, index: number, log: (m: string) => void = () => {}): DeviceState {
  const state: DeviceState = {
    index,
    handle: null,
    info: {
      index,
      name: 'unknown',
      uuid: `unknown-${index}`,
      memTotalBytes: null,
      smClockMaxMhz: null,
      memClockMaxMhz: null,
      gpmSupported: false,
    },
    unsupported: new Map(),
    gpm: {
      supported: false,
      reason: null,
      samples: [],
      takenAtMs: [],
      lastWindowMs: null,
      refused: new Map(),
      requests: new Map(),
    },
    lost: null,
    slow: null,
  };
  try {
    const h = nvml.handle(index);
    state.handle = h;
    const soft = <T>(fn: () => T): T | null => {
      try {
        return fn();
      } catch (e) {
        if (isFatal(e)) throw e;
        return null;
      }
    };
    state.info = {
      index,
      name: soft(() => nvml.name(h)) ?? 'unknown',
      uuid: soft(() => nvml.uuid(h)) ?? `unknown-${index}`,
      memTotalBytes: soft(() => nvml.memory(h).totalBytes),
      smClockMaxMhz: soft(() => nvml.maxClockMhz(h, CLOCK.SM)),
      memClockMaxMhz: soft(() => nvml.maxClockMhz(h, CLOCK.MEM)),
      gpmSupported: false,
    };
    try {
      state.gpm.supported = nvml.gpmSupported(h);
      if (state.gpm.supported) {
        state.gpm.samples = Array.from({ length: GPM_BUFFERS }, () => nvml.gpmSampleAlloc());
        state.gpm.takenAtMs = state.gpm.samples.map(() => null);
      } else state.gpm.reason = 'GPM needs a Hopper or newer data-center GPU (not supported on this one)';
    } catch (e) {
      if (isFatal(e)) throw e;
      state.gpm.supported = false;
      state.gpm.reason =
        e instanceof NvmlError && e.code === NVML.FUNCTION_NOT_FOUND
          ? `GPM is missing from this NVML (${e.fn}): update the NVIDIA driver`
          : `GPM unavailable: ${e instanceof NvmlError ? e.short : String(e)}`;
    }
    state.info.gpmSupported = state.gpm.supported;
    if (state.gpm.reason) logOnce(`gpm:${state.gpm.reason}`, `[nvml] GPU ${index}: ${state.gpm.reason}`, log);
  } catch (e) {
    state.lost = e instanceof NvmlError ? e : new NvmlError(NVML.UNKNOWN, 'nvmlDeviceGetHandleByIndex_v2', String(e));
  }
  return state;
}

/** Names looked up recently: pid → name and when (a pid is rarely reused within seconds). */
const names = new Map<number, { name: string | null; atMs: number }>();
const NAME_TTL_MS = 5000;

/** Process name from /proc/<pid>/comm, or null (other namespace, gone, not Linux); cached 5 s. */
export function processName(pid: number, nowMs = Date.now()): string | null {
  const hit = names.get(pid);
  if (hit && nowMs - hit.atMs < NAME_TTL_MS) return hit.name;
  let name: string | null = null;
  if (process.platform === 'linux') {
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || null;
    } catch {
      name = null;
    }
  }
  if (names.size > 4096) names.clear();
  names.set(pid, { name, atMs: nowMs });
  return name;
}

function lostSample(state: DeviceState): GpuSample {
  const reason = state.lost?.message ?? 'GPU cannot be read';
  const sample = emptySample(state);
  sample.error = reason;
  for (const key of Object.keys(sample) as (keyof GpuSample)[])
    if (sample[key] === null && key !== 'error') sample.nullReasons[key] = 'GPU is lost';
  return sample;
}

function emptySample(state: DeviceState): GpuSample {
  return {
    index: state.index,
    uuid: state.info.uuid,
    name: state.info.name,
    error: null,
    gpuUtilPct: null,
    memUtilPct: null,
    memUsedBytes: null,
    memTotalBytes: null,
    memReservedBytes: null,
    powerWatts: null,
    powerLimitWatts: null,
    temperatureC: null,
    smClockMhz: null,
    smClockMaxMhz: null,
    memClockMhz: null,
    memClockMaxMhz: null,
    pcieTxBytesPerSec: null,
    pcieRxBytesPerSec: null,
    clockEventReasons: null,
    processes: null,
    smActivePct: null,
    smOccupancyPct: null,
    tensorActivePct: null,
    dramActivePct: null,
    fp16ActivePct: null,
    fp32ActivePct: null,
    fp64ActivePct: null,
    nullReasons: {},
  };
}

/** The fields each query fills (or explains when it fails), made once rather than per tick. */
const F = {
  util: ['gpuUtilPct', 'memUtilPct'],
  memory: ['memUsedBytes', 'memTotalBytes', 'memReservedBytes'],
  power: ['powerWatts'],
  temperature: ['temperatureC'],
  smClock: ['smClockMhz'],
  memClock: ['memClockMhz'],
  pcieTx: ['pcieTxBytesPerSec'],
  pcieRx: ['pcieRxBytesPerSec'],
  reasons: ['clockEventReasons'],
  powerLimit: ['powerLimitWatts'],
  processes: ['processes'],
} as const satisfies Record<string, readonly (keyof GpuSample)[]>;

/** One GPU's per-tick queries, bound to its handle once. */
function deviceQueries(nvml: Nvml, h: DeviceHandle) {
  return {
    utilization: () => nvml.utilization(h),
    memory: () => nvml.memory(h),
    power: () => nvml.powerWatts(h),
    temperature: () => nvml.temperatureC(h),
    smClock: () => nvml.clockMhz(h, CLOCK.SM),
    memClock: () => nvml.clockMhz(h, CLOCK.MEM),
    pcieTx: () => nvml.pcieBytesPerSec(h, PCIE.TX),
    pcieRx: () => nvml.pcieBytesPerSec(h, PCIE.RX),
    reasons: () => nvml.clockEventReasons(h),
    powerLimit: () => nvml.powerLimitWatts(h),
    processes: () => nvml.processes(h),
  };
}
type DeviceQueries = ReturnType<typeof deviceQueries>;

/** Runs one query; on failure fills the reason for `fields` into `into` and remembers permanent ones. Fatal errors propagate. */
function runQuery<T>(
  state: DeviceState,
  key: string,
  fields: readonly (keyof GpuSample)[],
  fn: () => T,
  into: NullReasons,
  log: (m: string) => void,
): T | null {
  const known = state.unsupported.get(key);
  if (known !== undefined) {
    for (const f of fields) into[f] = known;
    return null;
  }
  try {
    return fn();
  } catch (e) {
    if (isFatal(e)) throw e;
    const reason = e instanceof NvmlError ? e.short : String(e);
    if (isPermanent(e)) {
      state.unsupported.set(key, reason);
      logOnce(`${state.index}:${key}`, `[nvml] GPU ${state.index}: ${key} unavailable: ${reason}`, log);
    }
    for (const f of fields) into[f] = reason;
    return null;
  }
}

/** Reads one GPU now. A GPU that goes lost is reported with `error` set; it never throws. */
export function readDevice(
  nvml: Nvml,
  state: DeviceState,
  nowMs: number,
  log: (m: string) => void = () => {},
): GpuSample {
  if (state.lost || state.handle === null) return lostSample(state);
  const h = state.handle;
  const s = emptySample(state);
  const reasons: NullReasons = s.nullReasons;
  const ask = (state.queries ??= deviceQueries(nvml, h));
  const q = <T>(
    key: string,
    fields: readonly (keyof GpuSample)[],
    fn: () => T,
    into: NullReasons = reasons,
  ): T | null => runQuery(state, key, fields, fn, into, log);
  try {
    const util = q('utilization', F.util, ask.utilization);
    s.gpuUtilPct = util?.gpuPct ?? null;
    s.memUtilPct = util?.memPct ?? null;
    const mem = q('memory', F.memory, ask.memory);
    if (mem) {
      s.memUsedBytes = mem.usedBytes;
      s.memTotalBytes = mem.totalBytes;
      s.memReservedBytes = mem.reservedBytes;
      if (mem.reservedBytes === null) reasons['memReservedBytes'] = 'needs nvmlDeviceGetMemoryInfo_v2 (newer driver)';
    }
    s.powerWatts = q('power', F.power, ask.power);
    s.temperatureC = q('temperature', F.temperature, ask.temperature);
    s.smClockMhz = q('smClock', F.smClock, ask.smClock);
    s.memClockMhz = q('memClock', F.memClock, ask.memClock);
    s.smClockMaxMhz = state.info.smClockMaxMhz;
    s.memClockMaxMhz = state.info.memClockMaxMhz;
    if (s.smClockMaxMhz === null) reasons['smClockMaxMhz'] = 'max clocks not reported by this GPU';
    if (s.memClockMaxMhz === null) reasons['memClockMaxMhz'] = 'max clocks not reported by this GPU';
    s.pcieTxBytesPerSec = q('pcie', F.pcieTx, ask.pcieTx);
    s.pcieRxBytesPerSec = q('pcie', F.pcieRx, ask.pcieRx);
    const bits = q('reasons', F.reasons, ask.reasons);
    s.clockEventReasons = bits === null ? null : decodeReasons(bits);
    let slow = state.slow;
    if (slow === null || isStale(slow, nowMs, SLOW_QUERY_MS)) {
      const into: NullReasons = {};
      const powerLimitWatts = q('powerLimit', F.powerLimit, ask.powerLimit, into);
      const procs = q('processes', F.processes, ask.processes, into);
      const processes =
        procs?.map((p) => ({ pid: p.pid, name: processName(p.pid, nowMs), usedGpuMemBytes: p.usedGpuMemBytes })) ??
        null;
      slow = state.slow = { atMs: nowMs, powerLimitWatts, processes, reasons: into };
    }
    s.powerLimitWatts = slow.powerLimitWatts;
    s.processes = slow.processes;
    Object.assign(reasons, slow.reasons);
    readGpm(nvml, state, s, nowMs);
  } catch (e) {
    if (!isFatal(e)) throw e;
    state.lost = e;
    log(`[nvml] GPU ${state.index} (${state.info.uuid}): ${e.message}`);
    return lostSample(state);
  }
  return s;
}

/**
 * The base for a window ending at `nowMs`: the newest other buffer at least GPM_MIN_GAP_MS old, else
 * one at most GPM_JITTER_MS short of it, else -1.
 */
function gpmBase(takenAtMs: readonly (number | null)[], current: number, nowMs: number): number {
  let best = -1;
  let near = -1;
  takenAtMs.forEach((at, i) => {
    if (i === current || at === null || at > nowMs) return;
    const age = nowMs - at;
    if (age >= GPM_MIN_GAP_MS && (best < 0 || at > (takenAtMs[best] as number))) best = i;
    else if (age >= GPM_MIN_GAP_MS - GPM_JITTER_MS && (near < 0 || at > (takenAtMs[near] as number))) near = i;
  });
  return best >= 0 ? best : near;
}

function readGpm(nvml: Nvml, state: DeviceState, s: GpuSample, nowMs: number): void {
  const g = state.gpm;
  const setReason = (reason: string): void => {
    for (const f of GPM_FIELDS) s.nullReasons[f] = reason;
  };
  if (!g.supported || g.samples.length < 2 || state.handle === null) return setReason(g.reason ?? 'GPM not available');
  // The new sample goes into the oldest (or an empty) buffer; the two newer ones stay as bases.
  let current = 0;
  g.takenAtMs.forEach((at, i) => {
    const cur = g.takenAtMs[current] ?? null;
    if (cur !== null && (at === null || at < cur)) current = i;
  });
  try {
    nvml.gpmSampleGet(state.handle, g.samples[current] as GpmSampleHandle);
  } catch (e) {
    if (isFatal(e)) throw e;
    g.takenAtMs[current] = null;
    return setReason(`GPM sample failed: ${e instanceof NvmlError ? e.short : String(e)}`);
  }
  g.takenAtMs[current] = nowMs;
  const base = gpmBase(g.takenAtMs, current, nowMs);
  if (base < 0) return setReason('GPM needs two samples at least 100 ms apart: first value on the next tick');
  g.lastWindowMs = nowMs - (g.takenAtMs[base] as number);
  const key = `${base},${current}`;
  let request = g.requests.get(key);
  if (request === undefined) {
    const ids = GPM_IDS.filter((id) => !g.refused.has(id));
    request = nvml.prepareGpmMetrics(g.samples[base] as GpmSampleHandle, g.samples[current] as GpmSampleHandle, ids);
    g.requests.set(key, request);
  }
  let result: GpmRequest;
  try {
    result = nvml.gpmMetrics(request);
  } catch (e) {
    if (isFatal(e)) throw e;
    return setReason(`GPM metrics failed: ${e instanceof NvmlError ? e.short : String(e)}`);
  }
  GPM_IDS.forEach((id, k) => {
    const field: GpmField = GPM_FIELDS[k] as GpmField;
    const at = result.ids.indexOf(id);
    if (at < 0) {
      s.nullReasons[field] = g.refused.get(id) ?? 'not reported';
      return;
    }
    const code = result.codes[at] as number;
    const v = result.values[at] as number;
    if (code === NVML.SUCCESS && Number.isFinite(v)) s[field] = Math.round(Math.min(100, Math.max(0, v)) * 10) / 10;
    else if (code !== NVML.SUCCESS) {
      const reason = `${code === NVML.NOT_SUPPORTED ? 'not supported' : nvmlCodeName(code).toLowerCase()} (NVML ${code})`;
      if (code === NVML.NOT_SUPPORTED) {
        g.refused.set(id, reason); // this GPU will not start supporting it: stop asking
        g.requests.clear();
      }
      s.nullReasons[field] = reason;
    } else s.nullReasons[field] = 'not reported';
  });
}

/** Frees the GPM buffers; call before nvmlShutdown. */
export function releaseDevice(nvml: Nvml, state: DeviceState): void {
  for (const sample of state.gpm.samples) {
    try {
      nvml.gpmSampleFree(sample);
    } catch {
      // Freeing after a lost GPU can fail; nothing else to do at shutdown.
    }
  }
  state.gpm.samples = [];
  state.gpm.takenAtMs = [];
  state.gpm.requests.clear();
}
