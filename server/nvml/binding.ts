/**
 * The thin, typed NVML layer: one method per query, each returning plain numbers or throwing an
 * NvmlError. Versioned symbols are picked once at open (nvmlInit_v2 → nvmlInit, process list
 * _v3 → _v2 → v1, MemoryInfo_v2 → v1, ClocksEventReasons → ClocksThrottleReasons).
 *
 * Lifecycle: `openNvml()` loads the library and calls nvmlInit; `close()` calls nvmlShutdown once
 * and unloads. Scratch buffers are reused across calls (NVML calls are synchronous here).
 */
import { NVML, NvmlError } from './errors.ts';
import { loadNvmlLib, type NvmlFn, type NvmlLib, type NvmlSymbol } from './lib.ts';
import { GPM_VERSION, MEMORY_V2_VERSION, OFF, SIZE, VALUE_NOT_AVAILABLE } from './structs.ts';

/** An NVML device handle (nvmlDevice_t, an opaque pointer). */
export type DeviceHandle = bigint;
/** A GPM sample buffer (nvmlGpmSample_t). */
export type GpmSampleHandle = bigint;

/** Memory in bytes; `reservedBytes` is null when only MemoryInfo v1 exists. */
export interface MemoryReading {
  totalBytes: number;
  usedBytes: number;
  freeBytes: number;
  reservedBytes: number | null;
}
/** A laid-out nvmlGpmMetricsGet request and its answer, index by index with `ids`: a return code and, where 0, a value. */
export interface GpmRequest {
  readonly buffer: Buffer;
  readonly ids: readonly number[];
  readonly values: Float64Array;
  readonly codes: Int32Array;
}
/** One running compute process; memory is null when NVML says "not available". */
export interface ProcessReading {
  pid: number;
  usedGpuMemBytes: number | null;
}

const num = (v: bigint): number => Number(v);
/** An unsigned 64-bit little-endian field as a number, without a BigInt (byte counts stay far below 2^53). */
const u64 = (b: Buffer, at: number): number => b.readUInt32LE(at) + b.readUInt32LE(at + 4) * 0x1_0000_0000;

/** Opens NVML. @throws NvmlError (12 no library, 9 no driver, …) with advice for the user. */
export function openNvml(options: { libraryPath?: string } = {}): Nvml {
  const lib = loadNvmlLib(options.libraryPath);
  try {
    return new Nvml(lib);
  } catch (e) {
    lib.unload();
    throw e;
  }
}

/** The typed NVML API. Construct with `openNvml()`. */
export class Nvml {
  readonly libraryPath: string;
  readonly #lib: NvmlLib;
  readonly #u32 = new Uint32Array(1);
  readonly #u64 = new BigUint64Array(1);
  readonly #text = Buffer.alloc(96);
  readonly #mem = Buffer.alloc(Math.max(SIZE.memoryV2, SIZE.memory));
  readonly #util = Buffer.alloc(SIZE.utilization);
  #procs = Buffer.alloc(SIZE.processInfo * 16);
  #closed = false;
  /** Which versioned symbol serves each query (for diagnostics). */
  readonly symbols: Readonly<Record<string, string | null>>;

  constructor(lib: NvmlLib) {
    this.#lib = lib;
    this.libraryPath = lib.path;
    const pick = (...names: NvmlSymbol[]): NvmlSymbol | null => names.find((n) => lib.fns[n]) ?? null;
    this.symbols = {
      init: pick('nvmlInit_v2', 'nvmlInit'),
      count: pick('nvmlDeviceGetCount_v2', 'nvmlDeviceGetCount'),
      handle: pick('nvmlDeviceGetHandleByIndex_v2', 'nvmlDeviceGetHandleByIndex'),
      memory: pick('nvmlDeviceGetMemoryInfo_v2', 'nvmlDeviceGetMemoryInfo'),
      reasons: pick('nvmlDeviceGetCurrentClocksEventReasons', 'nvmlDeviceGetCurrentClocksThrottleReasons'),
      processes: pick(
        'nvmlDeviceGetComputeRunningProcesses_v3',
        'nvmlDeviceGetComputeRunningProcesses_v2',
        'nvmlDeviceGetComputeRunningProcesses',
      ),
    };
    this.#call(this.symbols['init'] as NvmlSymbol | null, 'nvmlInit_v2');
  }

  /** Calls `name` (or reports `fallbackName` as missing) and throws NvmlError on any non-zero return. */
  #call(name: NvmlSymbol | null, fallbackName: string, ...args: unknown[]): void {
    const fn: NvmlFn | undefined = name ? this.#lib.fns[name] : undefined;
    if (!fn) throw new NvmlError(NVML.FUNCTION_NOT_FOUND, name ?? fallbackName);
    const rc = fn(...args);
    if (rc !== NVML.SUCCESS) throw new NvmlError(rc, name ?? fallbackName, this.#lib.errorString(rc));
  }

  #u32Query(name: NvmlSymbol, ...args: unknown[]): number {
    this.#call(name, name, ...args, this.#u32);
    return this.#u32[0] ?? 0;
  }

  #string(name: NvmlSymbol, handle: DeviceHandle | null): string {
    this.#text.fill(0);
    if (handle === null) this.#call(name, name, this.#text, this.#text.length);
    else this.#call(name, name, handle, this.#text, this.#text.length);
    const end = this.#text.indexOf(0);
    return this.#text.toString('utf8', 0, end < 0 ? this.#text.length : end);
  }

  /** Driver version, e.g. "550.54.15". */
  driverVersion(): string {
    return this.#string('nvmlSystemGetDriverVersion', null);
  }

  /** Number of GPUs NVML can see (respects CUDA_VISIBLE_DEVICES only via the driver, not here). */
  deviceCount(): number {
    this.#call(this.symbols['count'] as NvmlSymbol | null, 'nvmlDeviceGetCount_v2', this.#u32);
    return this.#u32[0] ?? 0;
  }

  /** The handle of GPU `index`. */
  handle(index: number): DeviceHandle {
    this.#call(this.symbols['handle'] as NvmlSymbol | null, 'nvmlDeviceGetHandleByIndex_v2', index, this.#u64);
    return this.#u64[0] ?? 0n;
  }

  name(h: DeviceHandle): string {
    return this.#string('nvmlDeviceGetName', h);
  }
  uuid(h: DeviceHandle): string {
    return this.#string('nvmlDeviceGetUUID', h);
  }

  /** GPU-Util and memory-Util, percent of the last sample period. */
  utilization(h: DeviceHandle): { gpuPct: number; memPct: number } {
    this.#call('nvmlDeviceGetUtilizationRates', 'nvmlDeviceGetUtilizationRates', h, this.#util);
    return { gpuPct: this.#util.readUInt32LE(0), memPct: this.#util.readUInt32LE(4) };
  }

  /** Memory in bytes; v2 (with reserved) where the driver has it, else v1. */
  memory(h: DeviceHandle): MemoryReading {
    const b = this.#mem;
    if (this.symbols['memory'] === 'nvmlDeviceGetMemoryInfo_v2') {
      b.fill(0);
      b.writeUInt32LE(MEMORY_V2_VERSION, OFF.memV2Version);
      try {
        this.#call('nvmlDeviceGetMemoryInfo_v2', 'nvmlDeviceGetMemoryInfo_v2', h, b);
        return {
          totalBytes: u64(b, OFF.memV2Total),
          usedBytes: u64(b, OFF.memV2Used),
          freeBytes: u64(b, OFF.memV2Free),
          reservedBytes: u64(b, OFF.memV2Reserved),
        };
      } catch (e) {
        // Some drivers export _v2 but reject its version word; v1 still answers.
        if (
          !(e instanceof NvmlError) ||
          e.code !== NVML.ARGUMENT_VERSION_MISMATCH ||
          !this.#lib.fns.nvmlDeviceGetMemoryInfo
        )
          throw e;
      }
    }
    b.fill(0);
    this.#call('nvmlDeviceGetMemoryInfo', 'nvmlDeviceGetMemoryInfo', h, b);
    return {
      totalBytes: u64(b, OFF.memTotal),
      usedBytes: u64(b, OFF.memUsed),
      freeBytes: u64(b, OFF.memFree),
      reservedBytes: null,
    };
  }

  /** Board power in watts (NVML reports milliwatts). */
  powerWatts(h: DeviceHandle): number {
    return this.#u32Query('nvmlDeviceGetPowerUsage', h) / 1000;
  }
  /** Enforced power limit in watts. */
  powerLimitWatts(h: DeviceHandle): number {
    return this.#u32Query('nvmlDeviceGetEnforcedPowerLimit', h) / 1000;
  }
  /** GPU core temperature in °C. */
  temperatureC(h: DeviceHandle): number {
    return this.#u32Query('nvmlDeviceGetTemperature', h, 0);
  }
  /** Current clock of `type` (CLOCK.SM, CLOCK.MEM) in MHz. */
  clockMhz(h: DeviceHandle, type: number): number {
    return this.#u32Query('nvmlDeviceGetClockInfo', h, type);
  }
  /** Maximum clock of `type` in MHz. */
  maxClockMhz(h: DeviceHandle, type: number): number {
    return this.#u32Query('nvmlDeviceGetMaxClockInfo', h, type);
  }
  /** PCIe throughput over NVML's 20 ms window in bytes/s (NVML reports KB/s; 1 KB = 1024 B as nvtop reads it). */
  pcieBytesPerSec(h: DeviceHandle, counter: number): number {
    return this.#u32Query('nvmlDeviceGetPcieThroughput', h, counter) * 1024;
  }

  /** Clock event reason bitmask (decode with `decodeReasons`). */
  clockEventReasons(h: DeviceHandle): bigint {
    const name = this.symbols['reasons'] as NvmlSymbol | null;
    this.#call(name, 'nvmlDeviceGetCurrentClocksEventReasons', h, this.#u64);
    return this.#u64[0] ?? 0n;
  }

  /** Running compute processes. Grows its buffer and retries on INSUFFICIENT_SIZE (processes come and go). */
  processes(h: DeviceHandle): ProcessReading[] {
    const name = this.symbols['processes'] as NvmlSymbol | null;
    const v1 = name === 'nvmlDeviceGetComputeRunningProcesses';
    const stride = v1 ? SIZE.processInfoV1 : SIZE.processInfo;
    for (let attempt = 0; attempt < 4; attempt++) {
      this.#u32[0] = Math.floor(this.#procs.length / stride);
      try {
        this.#call(name, 'nvmlDeviceGetComputeRunningProcesses_v3', h, this.#u32, this.#procs);
      } catch (e) {
        if (!(e instanceof NvmlError) || e.code !== NVML.INSUFFICIENT_SIZE) throw e;
        this.#procs = Buffer.alloc(stride * ((this.#u32[0] ?? 0) + 8)); // headroom for processes starting meanwhile
        continue;
      }
      const out: ProcessReading[] = [];
      for (let k = 0; k < (this.#u32[0] ?? 0); k++) {
        const base = k * stride;
        const mem = this.#procs.readBigUInt64LE(base + (v1 ? OFF.procV1Mem : OFF.procMem));
        out.push({
          pid: this.#procs.readUInt32LE(base + (v1 ? OFF.procV1Pid : OFF.procPid)),
          usedGpuMemBytes: mem === VALUE_NOT_AVAILABLE ? null : num(mem),
        });
      }
      return out;
    }
    throw new NvmlError(
      NVML.INSUFFICIENT_SIZE,
      name ?? 'nvmlDeviceGetComputeRunningProcesses_v3',
      this.#lib.errorString(7),
      'process list kept growing',
    );
  }

  /** Whether GPM works on this GPU (Hopper or newer). Missing GPM symbols read as unsupported. */
  gpmSupported(h: DeviceHandle): boolean {
    const b = Buffer.alloc(SIZE.gpmSupport);
    b.writeUInt32LE(GPM_VERSION, 0);
    this.#call('nvmlGpmQueryDeviceSupport', 'nvmlGpmQueryDeviceSupport', h, b);
    return b.readUInt32LE(4) !== 0;
  }

  /** Allocates a GPM sample buffer; free it with `gpmSampleFree`. */
  gpmSampleAlloc(): GpmSampleHandle {
    this.#call('nvmlGpmSampleAlloc', 'nvmlGpmSampleAlloc', this.#u64);
    return this.#u64[0] ?? 0n;
  }
  gpmSampleFree(s: GpmSampleHandle): void {
    this.#call('nvmlGpmSampleFree', 'nvmlGpmSampleFree', s);
  }
  /** Fills `s` with the GPU's counters now. */
  gpmSampleGet(h: DeviceHandle, s: GpmSampleHandle): void {
    this.#call('nvmlGpmSampleGet', 'nvmlGpmSampleGet', h, s);
  }

  /**
   * Lays out an nvmlGpmMetricsGet request for metrics `ids` between samples `s1` and `s2` (>100 ms
   * apart). A GPU alternates between two sample buffers, so it keeps two requests and runs one per
   * tick with `gpmMetrics`, instead of laying the struct out again each time.
   */
  prepareGpmMetrics(s1: GpmSampleHandle, s2: GpmSampleHandle, ids: readonly number[]): GpmRequest {
    const b = Buffer.alloc(OFF.gpmMetrics + SIZE.gpmMetric * ids.length);
    b.writeUInt32LE(GPM_VERSION, 0);
    b.writeUInt32LE(ids.length, 4);
    b.writeBigUInt64LE(s1, OFF.gpmSample1);
    b.writeBigUInt64LE(s2, OFF.gpmSample2);
    ids.forEach((id, k) => b.writeUInt32LE(id, OFF.gpmMetrics + k * SIZE.gpmMetric + OFF.metricId));
    return { buffer: b, ids: [...ids], values: new Float64Array(ids.length), codes: new Int32Array(ids.length) };
  }

  /**
   * Runs a prepared request: for `ids[k]`, its nvmlReturn_t lands in `codes[k]` and, when that is 0,
   * its value in `values[k]` (codes, not Errors: building an Error per metric per tick is costly).
   * Returns the request, whose arrays are overwritten by the next run.
   */
  gpmMetrics(request: GpmRequest): GpmRequest {
    const b = request.buffer;
    this.#call('nvmlGpmMetricsGet', 'nvmlGpmMetricsGet', b);
    for (let k = 0; k < request.ids.length; k++) {
      const base = OFF.gpmMetrics + k * SIZE.gpmMetric;
      const rc = b.readInt32LE(base + OFF.metricReturn);
      request.codes[k] = rc;
      request.values[k] = rc === NVML.SUCCESS ? b.readDoubleLE(base + OFF.metricValue) : Number.NaN;
    }
    return request;
  }

  /** nvmlShutdown once, then unload. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#lib.fns.nvmlShutdown?.();
    } finally {
      this.#lib.unload();
    }
  }
}
