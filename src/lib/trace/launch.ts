/**
 * HTA's kernel launch statistics (cuda_kernel_analysis.py `cuda_kernel_launch_stats`): each GPU event
 * paired by correlation with its CPU launch call (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
 * cudaMemsetAsync; their HIP names on ROCm). Launch delay is the kernel's start minus the launch call's end,
 * clipped at 0: how long work waited in the queue.
 */
import type { RankView } from './view.ts';

/** The summary the page and verdict read. */
export interface LaunchStats {
  launches: number;
  /** Launch delay, µs. */
  delayMedianUs: number;
  delayP95Us: number;
  /** Launch call duration on the CPU, µs. */
  cpuMedianUs: number;
  /** GPU event duration, µs. */
  gpuMedianUs: number;
  /** Share of launched kernels that run under 10 µs. */
  under10UsShare: number;
  /** Share of kernels that ran shorter than their own launch call took (launch-bound). */
  shorterThanLaunchShare: number;
}

const LAUNCH_NAMES = [
  'cudaLaunchKernel',
  'cudaLaunchKernelExC',
  'cudaMemcpyAsync',
  'cudaMemsetAsync',
  'hipLaunchKernel',
  'hipExtLaunchKernel',
  'hipModuleLaunchKernel',
  'hipMemcpyAsync',
  'hipMemsetAsync',
];

/** Launch statistics, or null when no launch call pairs with a GPU event. */
export function launchStats(v: RankView): LaunchStats | null {
  const ev = v.trace.events;
  const isLaunch = new Uint8Array(ev.strings.length);
  for (const n of LAUNCH_NAMES) {
    const id = ev.strings.indexOf(n);
    if (id >= 0) isLaunch[id] = 1;
  }
  // By correlation slot: whether a launch call has it, and the row of the last CPU event with it.
  const { slot, size } = v.corr;
  const launchCorr = new Uint8Array(size);
  for (let i = 0; i < ev.count; i++) if (v.kept[i] && isLaunch[ev.name[i]!]) launchCorr[slot[i]!] = 1;
  const cpuByCorr = new Int32Array(size).fill(-1);
  for (let i = 0; i < ev.count; i++)
    if (v.kept[i] && ev.stream[i] === -1 && launchCorr[slot[i]!]) cpuByCorr[slot[i]!] = i;
  // GPU events with a launch call: first counted, then their figures into arrays of that length.
  let launches = 0;
  for (let i = 0; i < ev.count; i++) if (v.kept[i] && ev.stream[i] !== -1 && cpuByCorr[slot[i]!]! >= 0) launches++;
  if (launches === 0) return null;
  const delay = new Float64Array(launches);
  const cpu = new Float64Array(launches);
  const gpu = new Float64Array(launches);
  let m = 0;
  let shorter = 0;
  let under10 = 0;
  for (let i = 0; i < ev.count; i++) {
    if (!v.kept[i] || ev.stream[i] === -1) continue;
    const c = cpuByCorr[slot[i]!]!;
    if (c < 0) continue;
    const cpuDur = v.endUs[c]! - v.tsUs[c]!;
    const gpuDur = v.endUs[i]! - v.tsUs[i]!;
    delay[m] = Math.max(0, v.tsUs[i]! - v.endUs[c]!);
    cpu[m] = cpuDur;
    gpu[m++] = gpuDur;
    if (gpuDur < cpuDur) shorter++;
    if (gpuDur < 10) under10++;
  }
  delay.sort();
  cpu.sort();
  gpu.sort();
  return {
    launches,
    delayMedianUs: quantileSorted(delay, 0.5),
    delayP95Us: quantileSorted(delay, 0.95),
    cpuMedianUs: quantileSorted(cpu, 0.5),
    gpuMedianUs: quantileSorted(gpu, 0.5),
    under10UsShare: under10 / launches,
    shorterThanLaunchShare: shorter / launches,
  };
}

/**
 * Linear-interpolated quantile (pandas' default) of values sorted in ascending order.
 * @example quantileSorted(Float64Array.of(1, 2, 3, 10), 0.5) // 2.5
 */
export function quantileSorted(s: Float64Array, q: number): number {
  if (s.length === 0) return 0;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
