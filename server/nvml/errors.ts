/** NVML return codes and the error every failed NVML call becomes. */

/** nvmlReturn_t values (nvml.h), by their names without the NVML_ERROR_ / NVML_ prefix. */
export const NVML = {
  SUCCESS: 0,
  UNINITIALIZED: 1,
  INVALID_ARGUMENT: 2,
  NOT_SUPPORTED: 3,
  NO_PERMISSION: 4,
  ALREADY_INITIALIZED: 5,
  NOT_FOUND: 6,
  INSUFFICIENT_SIZE: 7,
  INSUFFICIENT_POWER: 8,
  DRIVER_NOT_LOADED: 9,
  TIMEOUT: 10,
  IRQ_ISSUE: 11,
  LIBRARY_NOT_FOUND: 12,
  FUNCTION_NOT_FOUND: 13,
  CORRUPTED_INFOROM: 14,
  GPU_IS_LOST: 15,
  RESET_REQUIRED: 16,
  OPERATING_SYSTEM: 17,
  LIB_RM_VERSION_MISMATCH: 18,
  IN_USE: 19,
  MEMORY: 20,
  NO_DATA: 21,
  VGPU_ECC_NOT_SUPPORTED: 22,
  INSUFFICIENT_RESOURCES: 23,
  FREQ_NOT_SUPPORTED: 24,
  ARGUMENT_VERSION_MISMATCH: 25,
  DEPRECATED: 26,
  NOT_READY: 27,
  GPU_NOT_FOUND: 28,
  INVALID_STATE: 29,
  UNKNOWN: 999,
} as const;

/** An nvmlReturn_t name, e.g. "DRIVER_NOT_LOADED". */
export type NvmlCodeName = keyof typeof NVML;

/** Code → name, made from NVML. */
const NAME_OF: ReadonlyMap<number, NvmlCodeName> = new Map(
  (Object.entries(NVML) as [NvmlCodeName, number][]).map(([name, code]) => [code, name]),
);

/** What the user can do about each code; the fallback points at nvidia-smi. */
const ADVICE: Readonly<Record<number, string>> = {
  [NVML.UNINITIALIZED]: 'NVML was used before nvmlInit; this is a bug in the lab server, please report it.',
  [NVML.NOT_SUPPORTED]: 'This GPU or driver does not provide this metric; it is shown as unavailable.',
  [NVML.NO_PERMISSION]:
    'Run the lab server as a user that can open /dev/nvidia* (profiling counters may need root or NVreg_RestrictProfilingToAdminUsers=0).',
  [NVML.DRIVER_NOT_LOADED]:
    'Install or load the NVIDIA kernel driver (check that `nvidia-smi` works); the lab shows simulated data meanwhile.',
  [NVML.LIBRARY_NOT_FOUND]:
    'No NVIDIA driver library on this machine: install the NVIDIA driver, or set SATURATE_NVML_LIB to the path of libnvidia-ml.so.1.',
  [NVML.FUNCTION_NOT_FOUND]: 'This driver is too old for this metric; update the NVIDIA driver to see it.',
  [NVML.GPU_IS_LOST]:
    'The GPU fell off the bus: check `dmesg` for Xid 79, then reset the GPU (nvidia-smi -r) or reboot.',
  [NVML.RESET_REQUIRED]: 'The GPU needs a reset: run `nvidia-smi -r` as root or reboot.',
  [NVML.LIB_RM_VERSION_MISMATCH]:
    'The driver library and kernel module versions differ, usually after a driver update: reboot.',
  [NVML.GPU_NOT_FOUND]:
    'The GPU is not visible: check CUDA_VISIBLE_DEVICES, container GPU access (--gpus) and `nvidia-smi -L`.',
};

/** A short human name per code for messages, e.g. "NVIDIA driver not loaded". */
const SUMMARY: Readonly<Record<number, string>> = {
  [NVML.NOT_SUPPORTED]: 'not supported',
  [NVML.NO_PERMISSION]: 'permission denied',
  [NVML.DRIVER_NOT_LOADED]: 'NVIDIA driver not loaded',
  [NVML.LIBRARY_NOT_FOUND]: 'NVML library not found',
  [NVML.FUNCTION_NOT_FOUND]: 'function not in this NVML',
  [NVML.GPU_IS_LOST]: 'GPU is lost',
  [NVML.RESET_REQUIRED]: 'GPU reset required',
  [NVML.LIB_RM_VERSION_MISMATCH]: 'driver/library version mismatch',
};

/** The symbolic name of an NVML return code, e.g. `nvmlCodeName(9)` → "DRIVER_NOT_LOADED". */
export function nvmlCodeName(code: number): string {
  return NAME_OF.get(code) ?? `UNKNOWN_${code}`;
}

/**
 * Any NVML failure. `code` is the nvmlReturn_t, `nvmlName` its symbolic name, `fn` the call that
 * failed; the message leads with what happened (with the library's own nvmlErrorString text when
 * available, e.g. "Driver Not Loaded") and ends with what the user can do.
 * @example new NvmlError(NVML.DRIVER_NOT_LOADED, 'nvmlInit_v2', 'Driver Not Loaded').message
 *   // "NVIDIA driver not loaded (NVML 9: Driver Not Loaded) in nvmlInit_v2. Install or load ..."
 */
export class NvmlError extends Error {
  readonly code: number;
  readonly nvmlName: string;
  readonly fn: string;

  constructor(code: number, fn: string, libraryText?: string, detail?: string) {
    const what = SUMMARY[code] ?? nvmlCodeName(code).toLowerCase().replaceAll('_', ' ');
    const text = libraryText && libraryText !== '' ? `: ${libraryText}` : '';
    const advice = ADVICE[code] ?? `Check \`nvidia-smi\` on this machine; NVML returned ${nvmlCodeName(code)}.`;
    super(
      `${what[0]?.toUpperCase() ?? ''}${what.slice(1)} (NVML ${code}${text}) in ${fn}${detail ? ` (${detail})` : ''}. ${advice}`,
    );
    this.name = 'NvmlError';
    this.code = code;
    this.nvmlName = nvmlCodeName(code);
    this.fn = fn;
  }

  /** A short reason for a null metric, e.g. "not supported (NVML 3)". */
  get short(): string {
    return `${SUMMARY[this.code] ?? this.nvmlName.toLowerCase()} (NVML ${this.code}${this.code === NVML.FUNCTION_NOT_FOUND ? `: ${this.fn}` : ''})`;
  }
}

/** Whether `e` means the GPU is gone (lost, or needs a reset): report it lost and stop asking it. */
export function isFatal(e: unknown): e is NvmlError {
  return e instanceof NvmlError && (e.code === NVML.GPU_IS_LOST || e.code === NVML.RESET_REQUIRED);
}
