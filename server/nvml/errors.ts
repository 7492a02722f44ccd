/** NVML return codes and the error every failed NVML call becomes. */

/** nvmlReturn_t values (nvml.h). */
export const NVML_RETURN: Readonly<Record<number, string>> = {
  0: 'SUCCESS',
  1: 'UNINITIALIZED',
  2: 'INVALID_ARGUMENT',
  3: 'NOT_SUPPORTED',
  4: 'NO_PERMISSION',
  5: 'ALREADY_INITIALIZED',
  6: 'NOT_FOUND',
  7: 'INSUFFICIENT_SIZE',
  8: 'INSUFFICIENT_POWER',
  9: 'DRIVER_NOT_LOADED',
  10: 'TIMEOUT',
  11: 'IRQ_ISSUE',
  12: 'LIBRARY_NOT_FOUND',
  13: 'FUNCTION_NOT_FOUND',
  14: 'CORRUPTED_INFOROM',
  15: 'GPU_IS_LOST',
  16: 'RESET_REQUIRED',
  17: 'OPERATING_SYSTEM',
  18: 'LIB_RM_VERSION_MISMATCH',
  19: 'IN_USE',
  20: 'MEMORY',
  21: 'NO_DATA',
  22: 'VGPU_ECC_NOT_SUPPORTED',
  23: 'INSUFFICIENT_RESOURCES',
  24: 'FREQ_NOT_SUPPORTED',
  25: 'ARGUMENT_VERSION_MISMATCH',
  26: 'DEPRECATED',
  27: 'NOT_READY',
  28: 'GPU_NOT_FOUND',
  29: 'INVALID_STATE',
  999: 'UNKNOWN',
};

/** Codes the binding branches on. */
export const NVML = {
  SUCCESS: 0,
  UNINITIALIZED: 1,
  NOT_SUPPORTED: 3,
  NO_PERMISSION: 4,
  INSUFFICIENT_SIZE: 7,
  DRIVER_NOT_LOADED: 9,
  LIBRARY_NOT_FOUND: 12,
  FUNCTION_NOT_FOUND: 13,
  GPU_IS_LOST: 15,
  ARGUMENT_VERSION_MISMATCH: 25,
} as const;

/** What the user can do about each code; the fallback points at nvidia-smi. */
const ADVICE: Readonly<Record<number, string>> = {
  1: 'NVML was used before nvmlInit; this is a bug in the lab server, please report it.',
  3: 'This GPU or driver does not provide this metric; it is shown as unavailable.',
  4: 'Run the lab server as a user that can open /dev/nvidia* (profiling counters may need root or NVreg_RestrictProfilingToAdminUsers=0).',
  9: 'Install or load the NVIDIA kernel driver (check that `nvidia-smi` works); the lab shows simulated data meanwhile.',
  12: 'No NVIDIA driver library on this machine: install the NVIDIA driver, or set SATURATE_NVML_LIB to the path of libnvidia-ml.so.1.',
  13: 'This driver is too old for this metric; update the NVIDIA driver to see it.',
  15: 'The GPU fell off the bus: check `dmesg` for Xid 79, then reset the GPU (nvidia-smi -r) or reboot.',
  16: 'The GPU needs a reset: run `nvidia-smi -r` as root or reboot.',
  18: 'The driver library and kernel module versions differ, usually after a driver update: reboot.',
  28: 'The GPU is not visible: check CUDA_VISIBLE_DEVICES, container GPU access (--gpus) and `nvidia-smi -L`.',
};

/** A short human name per code for messages, e.g. "NVIDIA driver not loaded". */
const SUMMARY: Readonly<Record<number, string>> = {
  3: 'not supported',
  4: 'permission denied',
  9: 'NVIDIA driver not loaded',
  12: 'NVML library not found',
  13: 'function not in this NVML',
  15: 'GPU is lost',
  16: 'GPU reset required',
  18: 'driver/library version mismatch',
};

/** The symbolic name of an NVML return code, e.g. `nvmlCodeName(9)` → "DRIVER_NOT_LOADED". */
export function nvmlCodeName(code: number): string {
  return NVML_RETURN[code] ?? `UNKNOWN_${code}`;
}

/**
 * Any NVML failure. `code` is the nvmlReturn_t, `nvmlName` its symbolic name, `fn` the call that
 * failed; the message leads with what happened (with the library's own nvmlErrorString text when
 * available, e.g. "Driver Not Loaded") and ends with what the user can do.
 * @example new NvmlError(9, 'nvmlInit_v2', 'Driver Not Loaded').message
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
    return `${SUMMARY[this.code] ?? this.nvmlName.toLowerCase()} (NVML ${this.code}${this.code === 13 ? `: ${this.fn}` : ''})`;
  }
}
