/**
 * Data-loader pipeline: N workers each build whole batches (CPU ms per batch); the GPU trains one batch per step;
 * at most workers × prefetch batches are in flight (PyTorch DataLoader; content/cards/training/data-loader-bottleneck.md).
 */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/**
 * The best the pipeline can do: the GPU gets a batch every max(GPU ms, mean CPU ms ÷ workers). Prefetch cannot beat
 * it; it only decides how much of that rate survives uneven batches.
 */
export function loaderSteadyState(workers: number, cpuMsPerBatch: number, gpuMsPerStep: number, batchSize: number) {
  const stepMs = Math.max(gpuMsPerStep, cpuMsPerBatch / Math.max(1, workers));
  return { stepMs, gpuUtil: gpuMsPerStep / stepMs, samplesPerSec: (batchSize * 1000) / stepMs };
}

/** CPU time of a worker's k-th batch: every fourth takes 5× the others, so the mean is `cpuMsPerBatch`. */
export function batchCpuMs(cpuMsPerBatch: number, k: number): number {
  return cpuMsPerBatch * (k % 4 === 3 ? 2.5 : 0.5);
}

/**
 * GPU steps (ms from the loader's start) for `stepCount` batches. Worker b mod N builds batch b; batches reach the
 * GPU in order; at most workers × prefetch batches are built ahead of the one training (PyTorch's DataLoader).
 */
export function loaderTimeline(
  workers: number,
  cpuMsPerBatch: number,
  gpuMsPerStep: number,
  prefetch: number,
  stepCount: number,
): { startMs: number; endMs: number }[] {
  const w = Math.max(1, Math.round(workers));
  const inFlight = w * Math.max(1, Math.round(prefetch));
  const workerFree = new Array<number>(w).fill(0);
  const steps: { startMs: number; endMs: number }[] = [];
  for (let b = 0; b < stepCount; b++) {
    const gate = b >= inFlight ? steps[b - inFlight]!.startMs : 0;
    const ready = Math.max(workerFree[b % w]!, gate) + batchCpuMs(cpuMsPerBatch, Math.floor(b / w));
    workerFree[b % w] = ready;
    const startMs = Math.max(ready, steps[b - 1]?.endMs ?? 0);
    steps.push({ startMs, endMs: startMs + gpuMsPerStep });
  }
  return steps;
}

/** Long-run GPU-Util (0–1) and samples/s of the simulated pipeline, measured over its second half. */
export function loaderLongRun(
  workers: number,
  cpuMsPerBatch: number,
  gpuMsPerStep: number,
  prefetch: number,
  batchSize: number,
) {
  const n = 400;
  const steps = loaderTimeline(workers, cpuMsPerBatch, gpuMsPerStep, prefetch, n);
  const from = steps[n / 2]!.startMs;
  const stepMs = (steps[n - 1]!.startMs - from) / (n / 2 - 1);
  return { stepMs, gpuUtil: gpuMsPerStep / stepMs, samplesPerSec: (batchSize * 1000) / stepMs };
}

const HORIZON_MS = 3000;

export const figure: FigureDef = {
  name: 'data-loader',
  caption:
    'Data-loader pipeline: loader workers against one GPU, the first 3 seconds (every fourth batch a worker builds takes 5× the others)',
  controls: [
    {
      kind: 'range',
      id: 'workers',
      label: 'Loader workers (num_workers)',
      unit: '',
      min: 1,
      max: 32,
      step: 1,
      value: 2,
    },
    {
      kind: 'range',
      id: 'cpuMs',
      label: 'CPU time per batch, per worker',
      unit: 'ms',
      min: 10,
      max: 2000,
      step: 10,
      value: 570,
    },
    { kind: 'range', id: 'gpuMs', label: 'GPU time per step', unit: 'ms', min: 10, max: 1000, step: 10, value: 100 },
    {
      kind: 'range',
      id: 'prefetch',
      label: 'Prefetch factor',
      unit: 'batches per worker',
      min: 1,
      max: 8,
      step: 1,
      value: 2,
    },
    { kind: 'range', id: 'batchSize', label: 'Batch size', unit: 'samples', min: 1, max: 1024, step: 1, value: 256 },
  ],
  view(v: Values) {
    const workers = Number(v['workers']);
    const cpuMs = Number(v['cpuMs']);
    const gpuMs = Number(v['gpuMs']);
    const prefetch = Number(v['prefetch']);
    const r = loaderLongRun(workers, cpuMs, gpuMs, prefetch, Number(v['batchSize']));
    const best = loaderSteadyState(workers, cpuMs, gpuMs, Number(v['batchSize']));
    const steps = loaderTimeline(workers, cpuMs, gpuMs, prefetch, 400).filter((s) => s.startMs < HORIZON_MS);
    const x0 = 8;
    const w = 304;
    const sx = w / HORIZON_MS;
    let svg = text(x0, 14, 'GPU busy (a kernel running)') + rect(x0, 20, w, 40, 'fig-track');
    for (const s of steps)
      svg += rect(x0 + s.startMs * sx, 20, (Math.min(s.endMs, HORIZON_MS) - s.startMs) * sx, 40, 'fig-a');
    // GPU-Util per 250 ms window, as a 4 Hz meter would read it: the sawtooth.
    const win = 250;
    const pts: string[] = [];
    for (let t = 0; t < HORIZON_MS; t += win) {
      let busy = 0;
      for (const s of steps) busy += Math.max(0, Math.min(s.endMs, t + win) - Math.max(s.startMs, t));
      const y = 150 - (busy / win) * 70;
      pts.push(`${x0 + t * sx},${y.toFixed(1)} ${x0 + (t + win) * sx},${y.toFixed(1)}`);
    }
    svg +=
      text(x0, 74, 'GPU-Util per 250 ms window') +
      rect(x0, 80, w, 70, 'fig-track') +
      `<polyline class="fig-line" points="${pts.join(' ')}"/>` +
      text(x0, 166, '0 s', 'fig-t fig-s') +
      text(x0 + w, 166, '3 s', 'fig-t fig-s', 'end');
    // "More prefetch would help" only where the model says one more batch per worker raises GPU-Util.
    const unevenCost = r.gpuUtil < best.gpuUtil - 0.01;
    const morePrefetch = unevenCost && loaderLongRun(workers, cpuMs, gpuMs, prefetch + 1, 1).gpuUtil > r.gpuUtil;
    const limit =
      r.gpuUtil > 0.995
        ? 'the GPU is the limit'
        : morePrefetch
          ? 'more prefetch would help'
          : unevenCost
            ? `the slow batches hold it under the ${pct(best.gpuUtil)} these workers manage on average`
            : 'the loader is the limit';
    const readout =
      `A batch reaches the GPU every ${fmt(r.stepMs)} ms on average and trains for ${fmt(gpuMs)} ms: ` +
      `GPU-Util about ${pct(r.gpuUtil)}, ${fmt(r.samplesPerSec)} samples/s; ${limit}.`;
    return { svg, readout };
  },
};
