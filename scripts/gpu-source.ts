/**
 * The NVML source the real-GPU scripts (check-gpu.ts, gpu-labs.ts) read, or null after saying why
 * there is none: a machine without an NVIDIA GPU or driver is not a failure of those scripts.
 */
import { NvmlError } from '../server/nvml/errors.ts';
import { createNvmlSource, type NvmlSource } from '../server/sources/nvml.ts';

export function openGpuOrSayWhy(): NvmlSource | null {
  try {
    return createNvmlSource({ log: (m) => console.log(m) });
  } catch (e) {
    if (!(e instanceof NvmlError)) throw e;
    console.log(`No GPU on this machine: ${e.message}`);
    return null;
  }
}
