/**
 * Loads libnvidia-ml and declares the functions the lab uses. Every symbol is optional: an old
 * driver that lacks one (e.g. nvmlDeviceGetCurrentClocksEventReasons before 12.2) costs only the
 * metrics that need it. Struct arguments are `void *` and receive Buffers laid out by structs.ts.
 */
import koffi from 'koffi';
import { NVML, NvmlError } from './errors.ts';

const P = 'void *';
const U = 'uint32_t';

/** Prototypes: [return type, argument types]. All return nvmlReturn_t except nvmlErrorString. */
const PROTOTYPES = {
  nvmlInit_v2: ['int', []],
  nvmlInit: ['int', []],
  nvmlShutdown: ['int', []],
  nvmlErrorString: ['const char *', ['int']],
  nvmlSystemGetDriverVersion: ['int', [P, U]],
  nvmlDeviceGetCount_v2: ['int', [P]],
  nvmlDeviceGetCount: ['int', [P]],
  nvmlDeviceGetHandleByIndex_v2: ['int', [U, P]],
  nvmlDeviceGetHandleByIndex: ['int', [U, P]],
  nvmlDeviceGetName: ['int', [P, P, U]],
  nvmlDeviceGetUUID: ['int', [P, P, U]],
  nvmlDeviceGetUtilizationRates: ['int', [P, P]],
  nvmlDeviceGetMemoryInfo_v2: ['int', [P, P]],
  nvmlDeviceGetMemoryInfo: ['int', [P, P]],
  nvmlDeviceGetPowerUsage: ['int', [P, P]],
  nvmlDeviceGetEnforcedPowerLimit: ['int', [P, P]],
  nvmlDeviceGetTemperature: ['int', [P, 'int', P]],
  nvmlDeviceGetClockInfo: ['int', [P, 'int', P]],
  nvmlDeviceGetMaxClockInfo: ['int', [P, 'int', P]],
  nvmlDeviceGetPcieThroughput: ['int', [P, 'int', P]],
  nvmlDeviceGetCurrentClocksEventReasons: ['int', [P, P]],
  nvmlDeviceGetCurrentClocksThrottleReasons: ['int', [P, P]],
  nvmlDeviceGetComputeRunningProcesses_v3: ['int', [P, P, P]],
  nvmlDeviceGetComputeRunningProcesses_v2: ['int', [P, P, P]],
  nvmlDeviceGetComputeRunningProcesses: ['int', [P, P, P]],
  nvmlGpmQueryDeviceSupport: ['int', [P, P]],
  nvmlGpmSampleAlloc: ['int', [P]],
  nvmlGpmSampleFree: ['int', [P]],
  nvmlGpmSampleGet: ['int', [P, P]],
  nvmlGpmMetricsGet: ['int', [P]],
} as const satisfies Record<string, readonly [string, readonly string[]]>;

/** Names of the functions the binding may call. */
export type NvmlSymbol = keyof typeof PROTOTYPES;
/** A bound NVML function: takes handles (bigint), numbers and buffers, returns nvmlReturn_t. */
export type NvmlFn = (...args: unknown[]) => number;

/** The loaded library: the bound functions that exist, and where it came from. */
export interface NvmlLib {
  path: string;
  fns: Partial<Record<NvmlSymbol, NvmlFn>>;
  /** nvmlErrorString, or undefined when the library lacks it. */
  errorString(code: number): string | undefined;
  unload(): void;
}

/** Environment variable that names the library to load (unusual installs, tests). */
export const NVML_LIB_ENV = 'SATURATE_NVML_LIB';

/** Where to look, in order: explicit path, $SATURATE_NVML_LIB, then the platform's names. */
export function libraryCandidates(explicit?: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const override = explicit ?? env[NVML_LIB_ENV];
  if (override) return [override];
  if (process.platform === 'win32') {
    const root = env['SystemRoot'] ?? 'C:\\Windows';
    return ['nvml.dll', `${root}\\System32\\nvml.dll`, 'C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvml.dll'];
  }
  // nvtop tries both names; the .so.1 soname is what the driver package always installs.
  return ['libnvidia-ml.so.1', 'libnvidia-ml.so'];
}

/**
 * Opens libnvidia-ml and binds every known symbol that it exports.
 * @throws NvmlError LIBRARY_NOT_FOUND (12) when no candidate can be opened.
 */
export function loadNvmlLib(explicit?: string): NvmlLib {
  const tried: string[] = [];
  for (const path of libraryCandidates(explicit)) {
    let lib: ReturnType<typeof koffi.load>;
    try {
      lib = koffi.load(path);
    } catch (e) {
      tried.push(`${path}: ${(e as Error).message.split('\n')[0] ?? ''}`);
      continue;
    }
    const fns: Partial<Record<NvmlSymbol, NvmlFn>> = {};
    for (const [name, [ret, args]] of Object.entries(PROTOTYPES) as [
      NvmlSymbol,
      readonly [string, readonly string[]],
    ][]) {
      try {
        fns[name] = lib.func(name, ret, [...args]) as NvmlFn;
      } catch {
        // Missing symbol: this driver predates it; the metric that needs it reports FUNCTION_NOT_FOUND.
      }
    }
    const errorString = fns.nvmlErrorString as ((code: number) => string | null) | undefined;
    return {
      path,
      fns,
      errorString: (code) => errorString?.(code) ?? undefined,
      unload: () => lib.unload(),
    };
  }
  throw new NvmlError(NVML.LIBRARY_NOT_FOUND, 'dlopen', undefined, tried.join('; '));
}
