/**
 * The simulated machine: an H100 SXM5 80GB (numbers from the fact base, section 9) beside a
 * 16-core host. Scenarios describe each GPU as a `GpuState` in natural units; `toGpuSample`
 * rounds it the way NVML reports it (integer percentages, MHz, watts to 0.1).
 */
import type { DeviceInfo, GpuSample, HostSample } from '../../protocol/metrics.ts';
import { clamp, hash01, hashString, smoothNoise, stepNoise } from './noise.ts';
import { LAB_GPU } from '../lab/physics.ts';

const GIB = 1024 ** 3;

/** The simulated GPU: H100 SXM5 80GB HBM3, 700 W, 132 SMs. */
export const SIM_GPU = {
  name: 'NVIDIA H100 80GB HBM3',
  memTotalBytes: 81559 * 1024 * 1024,
  memReservedBytes: 527 * 1024 * 1024,
  smClockMaxMhz: LAB_GPU.maxSmClockMHz,
  memClockMaxMhz: 2619,
  idleSmClockMhz: 345,
  powerLimitWatts: LAB_GPU.tdpWatts,
  idlePowerWatts: 70,
} as const;

/** The simulated host: 16 logical cores, 128 GiB. */
export const SIM_HOST = { cores: 16, memTotalBytes: 128 * GIB } as const;

/** NVML's GPU-Util window on this product (between 1/6 s and 1 s by product; fact 1.2). */
export const UTIL_WINDOW_MS = 500;
/** Ampere and newer report power as a 1 s average (fact 3.1). */
export const POWER_WINDOW_MS = 1000;

/** Everything a scenario decides for one GPU, in natural units; percentages 0–100. */
export interface GpuState {
  gpuUtil: number;
  memUtil: number;
  memUsedGiB: number;
  powerWatts: number;
  powerLimitWatts?: number;
  temperatureC: number;
  smClockMhz: number;
  memClockMhz?: number;
  pcieTxMBps: number;
  pcieRxMBps: number;
  reasons: string[];
  smActive: number;
  smOccupancy: number;
  tensorActive: number;
  dramActive: number;
  fp16Active?: number;
  fp32Active?: number;
  fp64Active?: number;
  /** Name of the process holding the GPU, or null when none runs. */
  processName: string | null;
}

/** What a scenario gets to compute one frame. */
export interface SimContext {
  /** Milliseconds since the scenario started. */
  tMs: number;
  /** Hashed seed. */
  seed: number;
  /** Knob values, defaults filled in. */
  knobs: Readonly<Record<string, number>>;
  /** Slow drift in [-1, 1] for a named channel. */
  drift(channel: string, periodMs?: number): number;
  /** Sensor-like jitter in [-1, 1] for a named channel. */
  jitter(channel: string, stepMs?: number): number;
}

/** Builds the context for one frame. */
export function makeContext(tMs: number, seed: number, knobs: Readonly<Record<string, number>>): SimContext {
  return {
    tMs,
    seed,
    knobs,
    drift: (channel, periodMs = 4000) => smoothNoise(seed, hashString(channel), tMs, periodMs),
    jitter: (channel, stepMs = 100) => stepNoise(seed, hashString(channel), tMs, stepMs),
  };
}

/** A stable fake UUID for GPU `index` under `seed`. */
export function simUuid(seed: number, index: number): string {
  const hex = (k: number, len: number): string =>
    Math.floor(hash01(seed, index, k) * 16 ** len)
      .toString(16)
      .padStart(len, '0');
  return `GPU-${hex(1, 8)}-${hex(2, 4)}-${hex(3, 4)}-${hex(4, 4)}-${hex(5, 6)}${hex(6, 6)}`;
}

/** Static device info for `count` simulated GPUs. */
export function simDevices(seed: number, count: number): DeviceInfo[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    name: SIM_GPU.name,
    uuid: simUuid(seed, index),
    memTotalBytes: SIM_GPU.memTotalBytes,
    smClockMaxMhz: SIM_GPU.smClockMaxMhz,
    memClockMaxMhz: SIM_GPU.memClockMaxMhz,
    gpmSupported: true,
  }));
}

const pct = (x: number): number => Math.round(clamp(x, 0, 100));
const pct1 = (x: number): number => Math.round(clamp(x, 0, 100) * 10) / 10;

/** Rounds a scenario's state into the protocol's `GpuSample`, as NVML would report it. */
export function toGpuSample(seed: number, index: number, s: GpuState): GpuSample {
  const limit = s.powerLimitWatts ?? SIM_GPU.powerLimitWatts;
  return {
    index,
    uuid: simUuid(seed, index),
    name: SIM_GPU.name,
    error: null,
    gpuUtilPct: pct(s.gpuUtil),
    memUtilPct: pct(s.memUtil),
    memUsedBytes: Math.round(clamp(s.memUsedGiB, 0, 79.5) * GIB),
    memTotalBytes: SIM_GPU.memTotalBytes,
    memReservedBytes: SIM_GPU.memReservedBytes,
    powerWatts: Math.round(clamp(s.powerWatts, 60, limit + 5) * 10) / 10,
    powerLimitWatts: limit,
    temperatureC: Math.round(s.temperatureC),
    smClockMhz: Math.round(s.smClockMhz / 15) * 15,
    smClockMaxMhz: SIM_GPU.smClockMaxMhz,
    memClockMhz: s.memClockMhz ?? SIM_GPU.memClockMaxMhz,
    memClockMaxMhz: SIM_GPU.memClockMaxMhz,
    pcieTxBytesPerSec: Math.round(Math.max(0, s.pcieTxMBps) * 1e6),
    pcieRxBytesPerSec: Math.round(Math.max(0, s.pcieRxMBps) * 1e6),
    clockEventReasons: s.reasons,
    processes:
      s.processName === null
        ? []
        : [
            {
              pid: 4000 + Math.floor(hash01(seed, index, 99) * 60000),
              name: s.processName,
              usedGpuMemBytes: Math.round(Math.max(0, s.memUsedGiB - 0.5) * GIB),
            },
          ],
    smActivePct: pct1(s.smActive),
    smOccupancyPct: pct1(s.smOccupancy),
    tensorActivePct: pct1(s.tensorActive),
    // DRAM activity tops out around 80% in practice (fact 2.8).
    dramActivePct: pct1(Math.min(s.dramActive, 80)),
    fp16ActivePct: pct1(s.fp16Active ?? 0),
    fp32ActivePct: pct1(s.fp32Active ?? 0),
    fp64ActivePct: pct1(s.fp64Active ?? 0),
    nullReasons: {},
  };
}

/** GPU temperature that follows power: ~33 °C idle, ~75 °C at 650 W with good airflow. */
export function tempFor(powerWatts: number, ctx: SimContext, channel: string): number {
  return 30 + 0.068 * powerWatts + ctx.drift(`temp-${channel}`, 8000) * 1.5;
}

/** Power for a busy fraction: idle watts plus the active share (fractions 0–1). */
export function powerFor(busy: number, activeWatts: number, ctx: SimContext, channel: string): number {
  return SIM_GPU.idlePowerWatts + busy * (activeWatts - SIM_GPU.idlePowerWatts) + ctx.jitter(`pow-${channel}`, 200) * 6;
}

/** A host sample: `busyCores` maps core index to %, the rest idle at a few %. */
export function hostSample(ctx: SimContext, busyCores: ReadonlyMap<number, number>, memUsedGiB: number): HostSample {
  const perCorePct = Array.from({ length: SIM_HOST.cores }, (_, i) => {
    const busy = busyCores.get(i);
    const base = busy ?? 2 + Math.abs(ctx.jitter(`core-${i}`, 500)) * 3;
    const noisy =
      busy !== undefined && busy >= 99 ? 97 + ctx.jitter(`core-${i}`) * 3 : base + ctx.jitter(`core-${i}`) * 2;
    return Math.round(clamp(noisy, 0, 100) * 10) / 10;
  });
  const cpuPct = Math.round((perCorePct.reduce((a, b) => a + b, 0) / SIM_HOST.cores) * 10) / 10;
  const running = perCorePct.filter((p) => p > 50).length;
  const usedBytes = Math.round(memUsedGiB * GIB);
  return {
    cpuPct,
    perCorePct,
    load: {
      avg1: Math.round((running + 0.3 + ctx.drift('load1') * 0.2) * 100) / 100,
      avg5: Math.max(0, running + 0.2),
      avg15: Math.max(0, running * 0.8 + 0.2),
    },
    mem: { totalBytes: SIM_HOST.memTotalBytes, usedBytes, availableBytes: SIM_HOST.memTotalBytes - usedBytes },
  };
}
