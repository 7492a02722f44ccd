/**
 * KV-cache sizing: 2 × layers × KV heads × head dim × bytes × tokens, against what the GPU has left after weights
 * at vLLM's default memory fraction (content/cards/serving/kv-cache-sizing.md).
 */
import { DTYPE_BYTES, GPU_SPECS, isGpuId, type Dtype } from '../gpu-specs.ts';
import { fmt, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';
import { gpuPicker } from './pickers.ts';

/** vLLM's `--gpu-memory-utilization` default. */
export const VLLM_MEMORY_FRACTION = 0.9;

/** KV-cache bytes for one token across all layers. */
export function kvBytesPerToken(layers: number, kvHeads: number, headDim: number, bytesPerElem: number): number {
  return 2 * layers * kvHeads * headDim * bytesPerElem;
}

/** How many full sequences of `contextTokens` fit in `cacheBytes`. */
export function sequencesThatFit(cacheBytes: number, bytesPerToken: number, contextTokens: number): number {
  return cacheBytes <= 0 ? 0 : Math.floor(cacheBytes / bytesPerToken / contextTokens);
}

const GB = 1e9;

export const figure: FigureDef = {
  name: 'kv-cache',
  caption: 'KV-cache sizing: bytes per token, memory for a batch, and the largest batch that fits',
  controls: [
    { kind: 'range', id: 'layers', label: 'Layers', unit: '', min: 1, max: 128, step: 1, value: 80 },
    { kind: 'range', id: 'kvHeads', label: 'KV heads', unit: '', min: 1, max: 128, step: 1, value: 8 },
    { kind: 'range', id: 'headDim', label: 'Head dimension', unit: '', min: 32, max: 256, step: 32, value: 128 },
    {
      kind: 'select',
      id: 'cacheDtype',
      label: 'Cache precision',
      options: [
        { value: 'bf16', label: 'BF16 (2 bytes)' },
        { value: 'fp8', label: 'FP8 (1 byte)' },
      ],
      value: 'bf16',
    },
    {
      kind: 'range',
      id: 'context',
      label: 'Context per sequence',
      unit: 'tokens',
      min: 512,
      max: 131072,
      step: 512,
      value: 8192,
    },
    { kind: 'range', id: 'batch', label: 'Sequences at once', unit: '', min: 1, max: 256, step: 1, value: 16 },
    gpuPicker('h200'),
    { kind: 'range', id: 'weightsGB', label: 'Weights', unit: 'GB', min: 0, max: 200, step: 1, value: 70 },
  ],
  view(v: Values) {
    const perToken = kvBytesPerToken(
      Number(v['layers']),
      Number(v['kvHeads']),
      Number(v['headDim']),
      DTYPE_BYTES[String(v['cacheDtype']) as Dtype] ?? 2,
    );
    const context = Number(v['context']);
    const batch = Number(v['batch']);
    const gpuId = String(v['gpu']);
    const gpu = isGpuId(gpuId) ? GPU_SPECS[gpuId] : GPU_SPECS.h200;
    const weights = Number(v['weightsGB']) * GB;
    const budget = gpu.memGB * GB * VLLM_MEMORY_FRACTION;
    const cacheRoom = budget - weights;
    const perSeq = perToken * context;
    const need = perSeq * batch;
    const fit = sequencesThatFit(cacheRoom, perToken, context);
    const x0 = 8;
    const w = 304;
    const total = gpu.memGB * GB;
    const sx = (bytes: number) => (w * Math.min(bytes, total)) / total;
    const svg =
      text(x0, 16, `${gpu.label}: ${fmt(gpu.memGB)} GB`) +
      rect(x0, 26, w, 44, 'fig-track') +
      rect(x0, 26, sx(weights), 44, 'fig-b') +
      rect(
        x0 + sx(weights),
        26,
        Math.max(0, Math.min(sx(need), w - sx(weights))),
        44,
        need > cacheRoom ? 'fig-c' : 'fig-a',
      ) +
      rect(x0 + w * VLLM_MEMORY_FRACTION, 20, 1.5, 56, 'fig-tick') +
      text(x0, 90, 'weights, then KV cache; the tick is vLLM’s 90%', 'fig-t fig-s') +
      text(x0, 118, `${fmt(perToken)} bytes per token`, 'fig-t') +
      text(x0, 138, `${fmt(perSeq / GB)} GB per sequence`, 'fig-t') +
      text(x0, 158, `${fmt(need / GB)} GB for ${fmt(batch)}; ${fmt(fit)} fit`, 'fig-t');
    const verdict =
      cacheRoom <= 0
        ? 'does not fit: the weights leave no room for a cache'
        : need <= cacheRoom
          ? `fits, with room for ${fmt(fit)} in all`
          : fit === 0
            ? 'does not fit: not even one sequence does'
            : `does not fit: at most ${fmt(fit)} do`;
    const readout =
      `${fmt(perToken)} bytes per token, ${fmt(perSeq / GB)} GB per ${fmt(context)}-token sequence: ` +
      `a batch of ${fmt(batch)} needs ${fmt(need / GB)} GB and ${verdict} on ${gpu.label}.`;
    return { svg, readout };
  },
};
