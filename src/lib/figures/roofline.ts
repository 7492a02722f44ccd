/**
 * Roofline: attainable FLOP/s = min(peak, intensity × bandwidth), with dense peaks and bandwidth from the spec
 * table (content/cards/training/memory-bound-vs-compute-bound.md).
 */
import { DTYPE_LABELS, GPU_SPECS, isGpuId, ridgeFlopsPerByte, type Dtype } from '../gpu-specs.ts';
import { fmt, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';
import { dtypePicker, gpuPicker } from './pickers.ts';

/** Where a kernel of `intensity` FLOP/byte lands on a GPU's roofline; null when the GPU has no such peak. */
export function roofline(gpuId: string, dtype: Dtype, intensityFlopsPerByte: number) {
  const gpu = isGpuId(gpuId) ? GPU_SPECS[gpuId] : GPU_SPECS['h100-sxm'];
  const peak = gpu.peakTflops[dtype];
  const ridge = ridgeFlopsPerByte(gpu, dtype);
  if (peak === null || ridge === null) return null;
  const memoryRoofTflops = (intensityFlopsPerByte * gpu.memBandwidthGBps) / 1000;
  const attainableTflops = Math.min(peak, memoryRoofTflops);
  return { gpu, peakTflops: peak, ridge, attainableTflops, memoryBound: intensityFlopsPerByte < ridge };
}

const DTYPE_CHOICES: Dtype[] = ['fp32', 'tf32', 'bf16', 'fp8'];
/** Where common BF16 kernels sit (content/cards/training/memory-bound-vs-compute-bound.md). */
const KERNELS = [
  { intensity: 1 / 6, label: 'add', dx: 5, anchor: 'start' },
  { intensity: 1365, label: 'matmul 4096²', dx: -5, anchor: 'end' },
];
const AI_MIN = 0.1;
const AI_MAX = 10000;
const T_MIN = 0.1;
const T_MAX = 4000;

export const figure: FigureDef = {
  name: 'roofline',
  caption: 'Roofline: attainable TFLOP/s against arithmetic intensity, dense peaks',
  controls: [
    {
      kind: 'range',
      id: 'intensity',
      label: 'Arithmetic intensity',
      unit: 'FLOP/byte',
      min: AI_MIN,
      max: AI_MAX,
      step: 0.01,
      value: 64,
      log: true,
    },
    gpuPicker(),
    dtypePicker('Precision', DTYPE_CHOICES),
  ],
  view(v: Values) {
    const ai = Number(v['intensity']);
    const dtype = String(v['dtype']) as Dtype;
    const r = roofline(String(v['gpu']), dtype, ai);
    const x0 = 40;
    const y0 = 14;
    const w = 270;
    const h = 140;
    const lx = (a: number) => x0 + (w * Math.log10(a / AI_MIN)) / Math.log10(AI_MAX / AI_MIN);
    const ly = (t: number) => y0 + h - (h * Math.log10(Math.max(T_MIN, t) / T_MIN)) / Math.log10(T_MAX / T_MIN);
    let svg = rect(x0, y0, w, h, 'fig-track');
    for (const a of [0.1, 1, 10, 100, 1000, 10000])
      svg += text(
        lx(a),
        y0 + h + 12,
        a >= 1000 ? `${a / 1000}k` : fmt(a),
        'fig-t fig-s',
        a === 10000 ? 'end' : 'middle',
      );
    svg += text(2, 8, 'TFLOP/s', 'fig-t fig-s');
    for (const t of [1, 10, 100, 1000]) svg += text(x0 - 3, ly(t) + 3, fmt(t), 'fig-t fig-s', 'end');
    svg += text(x0 + w, y0 + h + 24, 'FLOP/byte', 'fig-t fig-s', 'end');
    if (!r) {
      const label = isGpuId(String(v['gpu']))
        ? GPU_SPECS[String(v['gpu']) as keyof typeof GPU_SPECS].label
        : 'This GPU';
      return {
        svg: svg + text(x0 + w / 2, y0 + h / 2, 'No such peak on this GPU', 'fig-t', 'middle'),
        readout: `${label} has no ${DTYPE_LABELS[dtype]} peak in its datasheet: pick another precision.`,
      };
    }
    const aRidge = r.ridge;
    svg +=
      `<polyline class="fig-line" points="${lx(AI_MIN)},${ly((AI_MIN * r.gpu.memBandwidthGBps) / 1000)} ${lx(aRidge)},${ly(r.peakTflops)} ${lx(AI_MAX)},${ly(r.peakTflops)}"/>` +
      KERNELS.map((k) => {
        const y = ly(Math.min(r.peakTflops, (k.intensity * r.gpu.memBandwidthGBps) / 1000));
        return (
          `<circle class="fig-ring" cx="${lx(k.intensity)}" cy="${y}" r="3.5"/>` +
          text(lx(k.intensity) + k.dx, y + 14, k.label, 'fig-t fig-s', k.anchor)
        );
      }).join('') +
      `<circle class="fig-dot" cx="${lx(ai)}" cy="${ly(r.attainableTflops)}" r="5"/>` +
      text(lx(aRidge), y0 + 12, `ridge ${fmt(aRidge)}`, 'fig-t fig-s', aRidge > 1000 ? 'end' : 'start');
    // Below the peak as shown: memory-bound. At it: compute-bound, or (just under the ridge) where the roofs meet.
    const reach =
      fmt(r.attainableTflops) !== fmt(r.peakTflops)
        ? `at most ${fmt(r.attainableTflops)} of the ${fmt(r.peakTflops)} TFLOP/s peak: memory-bound`
        : `the full ${fmt(r.peakTflops)} TFLOP/s peak: ${r.memoryBound ? 'where the two roofs meet' : 'compute-bound'}`;
    const readout =
      `At ${fmt(ai)} FLOP/byte on ${r.gpu.label} (${DTYPE_LABELS[dtype]}) a kernel can reach ` +
      `${reach}, with the ridge at ${fmt(r.ridge)} FLOP/byte.`;
    return { svg, readout };
  },
};
