/**
 * The device model: turns NVML queries for one GPU into a protocol `GpuSample`, where every metric
 * NVML cannot give is null with its reason.
 *
 * State per GPU: its handle and static facts, metrics found unsupported (not asked again, logged
 * once), its GPM state (gpm.ts), and `lost` once NVML says GPU_IS_LOST or RESET_REQUIRED (then the
 * GPU is reported lost without further queries while the others go on).
 * Lifecycle: `openDevice()` per index after nvmlInit; `release()` before nvmlShutdown.
 */
import { readFileSync } from 'node:fs';
import type { DeviceInfo, GpuSample, NullReasons } from '../../src/protocol/metrics.ts';
import type { DeviceHandle, Nvml } from './binding.ts';
import { isFatal, NVML, NvmlError } from './errors.ts';
import { GPM_BUFFERS, readGpm, type GpmState } from './gpm.ts';
import { CLOCK, decodeReasons, PCIE } from './structs.ts';
import { isStale } from '../../src/lib/stale.ts';

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
  gpm: GpmState;

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
    readGpm(nvml, h, state.gpm, s, nowMs);
  } catch (e) {
    if (!isFatal(e)) throw e;
    state.lost = e;
    log(`[nvml] GPU ${state.index} (${state.info.uuid}): ${e.message}`);
    return lostSample(state);
  }
  return s;
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
