/**
 * HTA's kernel launch statistics (cuda_kernel_analysis.py `cuda_kernel_launch_stats`): each GPU event
 * paired by correlation with its CPU launch call (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
 * cudaMemsetAsync; their HIP names on ROCm). Launch delay is the kernel's start minus the launch call's end,
 * clipped at 0: how long work waited in the queue.
 */
import { CorrRows, CorrSet } from './corr-index.ts';
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
  const launchCorr = new CorrSet(ev.count, v.corrRange);
  for (let i = 0; i < ev.count; i++) if (v.kept[i] && isLaunch[ev.name[i]!]) launchCorr.add(ev.corr[i]!);
  const cpuByCorr = new CorrRows(ev.count, v.corrRange);
  for (let i = 0; i < ev.count; i++)
    if (v.kept[i] && ev.stream[i] === -1 && launchCorr.has(ev.corr[i]!)) cpuByCorr.set(ev.corr[i]!, i);
  const delay: number[] = [];
  const cpu: number[] = [];
  const gpu: number[] = [];
  let shorter = 0;
  for (let i = 0; i < ev.count; i++) {
    if (!v.kept[i] || ev.stream[i] === -1) continue;
    const c = cpuByCorr.get(ev.corr[i]!);
    if (c < 0) continue;
    const cpuDur = v.endUs[c]! - v.tsUs[c]!;
    const gpuDur = v.endUs[i]! - v.tsUs[i]!;
    delay.push(Math.max(0, v.tsUs[i]! - v.endUs[c]!));
    cpu.push(cpuDur);
    gpu.push(gpuDur);
    if (gpuDur < cpuDur) shorter++;
  }
  if (gpu.length === 0) return null;
  return {
    launches: gpu.length,
    delayMedianUs: quantile(delay, 0.5),
    delayP95Us: quantile(delay, 0.95),
    cpuMedianUs: quantile(cpu, 0.5),
    gpuMedianUs: quantile(gpu, 0.5),
    under10UsShare: gpu.filter((d) => d < 10).length / gpu.length,
    shorterThanLaunchShare: shorter / gpu.length,
  };
}

/** Linear-interpolated quantile (pandas' default). */
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = Float64Array.from(xs).sort();
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
