/**
 * Inference batching for LLM decode: each step reads the weights once for the whole batch plus every sequence's
 * KV cache, and does about 2N FLOPs per token (content/cards/useful-work/mbu-for-inference.md). Bounds, not
 * measurements: the step takes at least bytes ÷ bandwidth and at least FLOPs ÷ dense peak, the peak of the precision
 * the matmuls run in (FP8 weights on a GPU with FP8 Tensor Cores: the FP8 peak, twice BF16's on Hopper).
 */
import { GPU_SPECS, isGpuId } from '../gpu-specs.ts';
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';
import { gpuPicker } from './pickers.ts';

/** Lower bound on one decode step, its tokens/s, and MBU and MFU at that bound (0–1). */
export function decodeStep(
  paramsBillions: number,
  weightBytesPerParam: number,
  batch: number,
  contextTokens: number,
  kvBytesPerToken: number,
  gpuId: string,
) {
  const gpu = isGpuId(gpuId) ? GPU_SPECS[gpuId] : GPU_SPECS['h100-sxm'];
  const params = paramsBillions * 1e9;
  const bytes = params * weightBytesPerParam + batch * contextTokens * kvBytesPerToken;
  const memMs = (bytes / (gpu.memBandwidthGBps * 1e9)) * 1000;
  const flops = 2 * params * batch;
  // FP8 weights run FP8 matmuls where the GPU has FP8 Tensor Cores; elsewhere they are upcast and run at BF16.
  const computeDtype: 'fp8' | 'bf16' = weightBytesPerParam === 1 && gpu.peakTflops.fp8 !== null ? 'fp8' : 'bf16';
  const peakTflops = gpu.peakTflops[computeDtype]!;
  const computeMs = (flops / (peakTflops * 1e12)) * 1000;
  const stepMs = Math.max(memMs, computeMs);
  return {
    gpu,
    /** The dense peak the compute bound uses: FP8 for FP8 weights on a GPU with FP8 Tensor Cores, else BF16. */
    computeDtype,
    peakTflops,
    memMs,
    computeMs,
    stepMs,
    tokensPerSec: (batch * 1000) / stepMs,
    mbu: memMs / stepMs,
    mfu: computeMs / stepMs,
  };
}

export const figure: FigureDef = {
  name: 'decode-batching',
  caption: 'Inference batching: one LLM decode step against the bandwidth and compute roofs (best case)',
  controls: [
    { kind: 'range', id: 'paramsB', label: 'Parameters', unit: 'billion', min: 1, max: 200, step: 1, value: 7 },
    {
      kind: 'select',
      id: 'weights',
      label: 'Weight precision',
      options: [
        { value: '2', label: 'BF16 (2 bytes)' },
        { value: '1', label: 'FP8 (1 byte)' },
      ],
      value: '2',
    },
    { kind: 'range', id: 'batch', label: 'Batch (sequences)', unit: '', min: 1, max: 512, step: 1, value: 1 },
    {
      kind: 'range',
      id: 'context',
      label: 'Context per sequence',
      unit: 'tokens',
      min: 0,
      max: 32768,
      step: 256,
      value: 0,
    },
    { kind: 'range', id: 'kvKB', label: 'KV cache per token', unit: 'KB', min: 16, max: 1024, step: 16, value: 128 },
    gpuPicker(),
  ],
  view(v: Values) {
    const batch = Number(v['batch']);
    const r = decodeStep(
      Number(v['paramsB']),
      Number(v['weights']),
      batch,
      Number(v['context']),
      Number(v['kvKB']) * 1024,
      String(v['gpu']),
    );
    const x0 = 8;
    const w = 304;
    const sx = w / Math.max(r.memMs, r.computeMs);
    const svg =
      text(x0, 16, `time per step, ${r.gpu.label}`) +
      text(x0, 36, `reading bytes ${fmt(r.memMs)} ms`, 'fig-t fig-s') +
      rect(x0, 40, w, 22, 'fig-track') +
      rect(x0, 40, r.memMs * sx, 22, 'fig-b') +
      text(
        x0,
        78,
        `doing FLOPs ${fmt(r.computeMs)} ms at ${fmt(r.peakTflops)} TFLOP/s ${r.computeDtype.toUpperCase()}`,
        'fig-t fig-s',
      ) +
      rect(x0, 82, w, 22, 'fig-track') +
      rect(x0, 82, r.computeMs * sx, 22, 'fig-a') +
      text(x0, 132, `${fmt(r.tokensPerSec)} tokens/s · ${fmt(r.stepMs)} ms per token`, 'fig-t fig-big') +
      text(x0, 156, `MBU ${pct(r.mbu)} · MFU ${pct(r.mfu)} at the bound`, 'fig-t');
    const bound = r.memMs >= r.computeMs ? 'memory-bound' : 'compute-bound';
    const readout =
      `At batch ${fmt(batch)} a decode step takes at least ${fmt(r.stepMs)} ms (${bound} against the ${r.computeDtype.toUpperCase()} peak): ` +
      (batch > 1
        ? `${fmt(r.tokensPerSec)} tokens/s in all, ${fmt(1000 / r.stepMs)} per sequence.`
        : `${fmt(r.tokensPerSec)} tokens/s for its one sequence.`);
    return { svg, readout };
  },
};
