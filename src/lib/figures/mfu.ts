/** MFU calculator: tokens/s × 6N FLOPs per token ÷ (GPUs × dense peak) (gpu-facts 5.6–5.9; content/cards/useful-work/mfu.md). */
import { DTYPE_LABELS, GPU_SPECS, isGpuId, type Dtype } from '../gpu-specs.ts';
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';
import { dtypePicker, gpuPicker } from './pickers.ts';

/** Model FLOPs Utilization (0–1) with the 6N approximation; null when the GPU has no peak at `dtype`. */
export function mfu(paramsBillions: number, tokensPerSec: number, gpus: number, gpuId: string, dtype: Dtype) {
  const gpu = isGpuId(gpuId) ? GPU_SPECS[gpuId] : GPU_SPECS['h100-sxm'];
  const peak = gpu.peakTflops[dtype];
  if (peak === null) return null;
  const flopsPerToken = 6 * paramsBillions * 1e9;
  const achievedFlops = tokensPerSec * flopsPerToken;
  const peakFlops = gpus * peak * 1e12;
  return { gpu, flopsPerToken, achievedFlops, peakFlops, mfu: achievedFlops / peakFlops };
}

const DTYPE_CHOICES: Dtype[] = ['tf32', 'bf16', 'fp8'];
const sci = (n: number) => n.toExponential(2).replace('e+', 'e');

export const figure: FigureDef = {
  name: 'mfu',
  caption: 'MFU calculator: throughput against the matching dense peak',
  controls: [
    {
      kind: 'range',
      id: 'paramsB',
      label: 'Parameters',
      unit: 'billion',
      min: 0.1,
      max: 1000,
      step: 0.01,
      value: 7,
      log: true,
    },
    {
      kind: 'range',
      id: 'tokensPerSec',
      label: 'Throughput, whole job',
      unit: 'tokens/s',
      min: 100,
      max: 10000000,
      step: 0.01,
      value: 30000,
      log: true,
    },
    { kind: 'range', id: 'gpus', label: 'GPUs', unit: 'GPUs', min: 1, max: 512, step: 1, value: 8 },
    gpuPicker(),
    dtypePicker('Training precision', DTYPE_CHOICES),
  ],
  view(v: Values) {
    const dtype = String(v['dtype']) as Dtype;
    const r = mfu(Number(v['paramsB']), Number(v['tokensPerSec']), Number(v['gpus']), String(v['gpu']), dtype);
    const x0 = 8;
    const w = 304;
    const ticks = [0.2, 0.35, 0.45].map((s) => rect(x0 + w * s, 40, 1.5, 48, 'fig-tick')).join('');
    const scaleText =
      text(x0 + w * 0.2, 102, '20% poor', 'fig-t fig-s', 'middle') +
      text(x0 + w * 0.4, 116, '35–45% well tuned', 'fig-t fig-s', 'middle');
    if (!r) {
      return {
        svg: rect(x0, 40, w, 48, 'fig-track') + text(x0, 24, 'No such peak on this GPU'),
        readout: `This GPU has no ${DTYPE_LABELS[dtype]} peak in its datasheet: pick another precision.`,
      };
    }
    const share = Math.min(1, r.mfu);
    const svg =
      text(x0, 24, `MFU ${pct(r.mfu)}`, 'fig-t fig-big') +
      rect(x0, 40, w, 48, 'fig-track') +
      rect(x0, 40, w * share, 48, r.mfu > 1 ? 'fig-c' : 'fig-a') +
      ticks +
      scaleText +
      text(x0, 146, `achieved ${sci(r.achievedFlops)} FLOP/s`, 'fig-t fig-s') +
      text(x0, 162, `peak ${sci(r.peakFlops)} FLOP/s (dense)`, 'fig-t fig-s');
    // Said where the percent shown is above 100, so "MFU is 100%" never comes with "above 100%".
    const impossible = Math.round(r.mfu * 100) > 100 ? ' That is above 100%: check the inputs or the peak.' : '';
    const readout =
      `MFU is ${pct(r.mfu)}: ${fmt(Number(v['tokensPerSec']))} tokens/s × ${sci(r.flopsPerToken)} FLOPs per token ` +
      `against ${fmt(Number(v['gpus']))} × ${r.gpu.label} at ${fmt(r.gpu.peakTflops[dtype]!)} TFLOP/s ${DTYPE_LABELS[dtype]}.${impossible}`;
    return { svg, readout };
  },
};
