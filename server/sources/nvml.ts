/**
 * The live source: every GPU through NVML plus the host from /proc.
 * Lifecycle: `createNvmlSource()` opens NVML and each device (throws NvmlError when NVML cannot
 * start); `close()` frees GPM buffers and calls nvmlShutdown once.
 */
import type { DeviceInfo } from '../../src/protocol/metrics.ts';
import { createHostProbe, type HostProbe } from '../host.ts';
import { openNvml, type Nvml } from '../nvml/binding.ts';
import { openDevice, readDevice, releaseDevice, type DeviceState } from '../nvml/device.ts';
import type { MetricSource, SourceReading } from './types.ts';

/** Options for the NVML source. */
export interface NvmlSourceOptions {
  /** Library path; defaults to $SATURATE_NVML_LIB, then the platform's name. */
  libraryPath?: string;
  host?: HostProbe;
  /** Where one-off notes go (unsupported metrics, lost GPUs). */
  log?: (message: string) => void;
}

/** An NVML source with its driver version, for /api/devices and check-gpu. */
export interface NvmlSource extends MetricSource {
  readonly driverVersion: string | null;
  readonly nvml: Nvml;
}

/** Opens NVML and every GPU. @throws NvmlError when NVML cannot start (no library, no driver). */
export function createNvmlSource(options: NvmlSourceOptions = {}): NvmlSource {
  const log = options.log ?? ((m: string) => console.error(m));
  const nvml = openNvml(options.libraryPath === undefined ? {} : { libraryPath: options.libraryPath });
  let states: DeviceState[];
  let driverVersion: string | null = null;
  try {
    try {
      driverVersion = nvml.driverVersion();
    } catch {
      driverVersion = null;
    }
    const count = nvml.deviceCount();
    states = Array.from({ length: count }, (_, i) => openDevice(nvml, i, log));
  } catch (e) {
    nvml.close();
    throw e;
  }
  const host = options.host ?? createHostProbe();
  let closed = false;
  return {
    id: 'nvml',
    simulated: false,
    reason: null,
    driverVersion,
    nvml,
    devices(): DeviceInfo[] {
      return states.map((s) => ({ ...s.info }));
    },
    read(nowMs: number): SourceReading {
      return { gpus: states.map((s) => readDevice(nvml, s, nowMs, log)), host: host.sample(nowMs), throughput: null };
    },
    close() {
      if (closed) return;
      closed = true;
      for (const s of states) releaseDevice(nvml, s);
      nvml.close();
    },
  };
}
