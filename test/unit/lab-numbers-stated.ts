/**
 * The hardware numbers the lab texts state, each with its value recomputed from the spec table
 * (src/lib/gpu-specs.ts) and src/lib/lab/physics.ts, for test/unit/lab-numbers.test.ts.
 */
import { GPU_SPECS, ridgeFlopsPerByte } from '../../src/lib/gpu-specs.ts';
import {
  BLOCKED_AIRFLOW_SHARE,
  gptBlockParams,
  gptFlopsPerToken,
  gptParams,
  gptTokensPerSec,
  LAB_GPU,
  labPeakFlops,
  MFU_GPT,
  mlpParams,
  rooflineIntensity,
  SMALL_BATCH,
  sustainedUnderLimit,
  TENSOR_MLP,
} from '../../src/lib/lab/physics.ts';
import { SIM_GPU } from '../../src/lib/sim/model.ts';

/** The labs, by file name. */
export const LABS = [
  'idle-gpu-cost',
  'data-loader-starvation',
  'busy-in-time',
  'tensor-cores',
  'memory-vs-compute',
  'throttling',
  'measure-mfu',
] as const;
export type LabId = (typeof LABS)[number];

/** A number as written in a lab ("53,100", "1.26e9", "14.8"). */
export const num = (s: string): number => Number(s.replace(/,/g, ''));
export const peak = (dtype: 'fp32' | 'bf16'): number => LAB_GPU.peakTflops[dtype]!;

/**
 * One stated number: the text as it appears in the lab, the value recomputed, and the rounding the text uses
 * (the stated figure must be within half a step of the recomputed one).
 */
export interface Stated {
  lab: LabId;
  /** Exact text in the lab file, containing the number once, e.g. "≈ 53,100 tokens/s". */
  appears: string;
  /** The number inside `appears`, as written. */
  stated: string;
  value: number;
  step: number;
}

export const gpt = gptFlopsPerToken(MFU_GPT);
export const fp32Tps = gptTokensPerSec(false);
export const bf16Tps = gptTokensPerSec(true);
/** The throttling lab's two states, by the one power model (src/lib/power-model.ts) the simulator plays. */
const restored = sustainedUnderLimit(LAB_GPU.tdpWatts);
const capped = sustainedUnderLimit(400, BLOCKED_AIRFLOW_SHARE);
const mfuDebrief = (240_000 * 1.26e9) / labPeakFlops('bf16');

export const STATED: Stated[] = [
  // measure-mfu: the script's model and the peaks
  {
    lab: 'measure-mfu',
    appears: '12 × 12,596,224 (one block)',
    stated: '12,596,224',
    value: gptBlockParams(1024),
    step: 1,
  },
  {
    lab: 'measure-mfu',
    appears: '≈ **184.7M** parameters',
    stated: '184.7',
    value: gptParams(MFU_GPT) / 1e6,
    step: 0.1,
  },
  { lab: 'measure-mfu', appears: '6N + 12·L·H·Q·T = 1.108e9', stated: '1.108e9', value: gpt.sixN, step: 1e6 },
  { lab: 'measure-mfu', appears: '(0.151e9)', stated: '0.151e9', value: gpt.attention, step: 1e6 },
  { lab: 'measure-mfu', appears: '≈ **1.26e9 FLOPs per token**', stated: '1.26e9', value: gpt.total, step: 1e7 },
  { lab: 'measure-mfu', appears: 'dense peak is 66.9 TFLOP/s', stated: '66.9', value: peak('fp32'), step: 0.1 },
  {
    lab: 'measure-mfu',
    appears: '≈ 53,100 tokens/s',
    stated: '53,100',
    value: labPeakFlops('fp32') / gpt.total,
    step: 100,
  },
  { lab: 'measure-mfu', appears: 'illustrative 26,600 tokens/s', stated: '26,600', value: fp32Tps, step: 100 },
  {
    lab: 'measure-mfu',
    appears: 'MFU sits near 3.4%',
    stated: '3.4',
    value: (100 * fp32Tps * gpt.total) / labPeakFlops('bf16'),
    step: 0.1,
  },
  {
    lab: 'measure-mfu',
    appears: 'pass 66.9 ÷ 989.4 ≈ 6.8%',
    stated: '6.8',
    value: (100 * peak('fp32')) / peak('bf16'),
    step: 0.1,
  },
  {
    lab: 'measure-mfu',
    appears: '6.8%: the most fp32',
    stated: '6.8',
    value: (100 * peak('fp32')) / peak('bf16'),
    step: 0.1,
  },
  { lab: 'measure-mfu', appears: '≈ **14.8×**', stated: '14.8', value: peak('bf16') / peak('fp32'), step: 0.1 },
  { lab: 'measure-mfu', appears: 'illustrative 196,000 tokens/s', stated: '196,000', value: bf16Tps, step: 1000 },
  {
    lab: 'measure-mfu',
    appears: '25% MFU',
    stated: '25',
    value: (100 * bf16Tps * gpt.total) / labPeakFlops('bf16'),
    step: 1,
  },
  { lab: 'measure-mfu', appears: '7.4× the fp32 run', stated: '7.4', value: bf16Tps / fp32Tps, step: 0.1 },
  {
    lab: 'measure-mfu',
    appears: '66.9e12 ≈ 50%',
    stated: '50',
    value: (100 * fp32Tps * gpt.total) / labPeakFlops('fp32'),
    step: 1,
  },
  {
    lab: 'measure-mfu',
    appears: 'about\n3.4%',
    stated: '3.4',
    value: (100 * fp32Tps * gpt.total) / labPeakFlops('bf16'),
    step: 0.1,
  },
  { lab: 'measure-mfu', appears: 'answer: 30.6', stated: '30.6', value: 100 * mfuDebrief, step: 0.1 },
  {
    lab: 'measure-mfu',
    appears: 'value: 15.3',
    stated: '15.3',
    value: (100 * 240_000 * 1.26e9) / (2 * labPeakFlops('bf16')),
    step: 0.1,
  },
  {
    lab: 'measure-mfu',
    appears: 'value: 96.9',
    stated: '96.9',
    value: (100 * 240_000 * 1.26e9) / (GPU_SPECS['a100-sxm-80gb'].peakTflops.bf16! * 1e12),
    step: 0.1,
  },
  {
    lab: 'measure-mfu',
    appears: 'H100 PCIe 756',
    stated: '756',
    value: GPU_SPECS['h100-pcie'].peakTflops.bf16!,
    step: 1,
  },
  {
    lab: 'measure-mfu',
    appears: 'A100 312',
    stated: '312',
    value: GPU_SPECS['a100-sxm-80gb'].peakTflops.bf16!,
    step: 1,
  },
  { lab: 'measure-mfu', appears: 'L4 121 TFLOP/s', stated: '121', value: GPU_SPECS.l4.peakTflops.bf16!, step: 1 },
  {
    lab: 'measure-mfu',
    appears: 'differ only 121 ÷ 30.3 ≈ 4×',
    stated: '4',
    value: GPU_SPECS.l4.peakTflops.bf16! / GPU_SPECS.l4.peakTflops.fp32!,
    step: 1,
  },
  // tensor-cores
  {
    lab: 'tensor-cores',
    appears: 'about 1.07B parameters',
    stated: '1.07',
    value: mlpParams(TENSOR_MLP) / 1e9,
    step: 0.01,
  },
  { lab: 'tensor-cores', appears: '6N ≈ 6.4e9 FLOPs', stated: '6.4e9', value: 6 * mlpParams(TENSOR_MLP), step: 1e8 },
  { lab: 'tensor-cores', appears: 'H100 SXM is 66.9 TFLOP/s', stated: '66.9', value: peak('fp32'), step: 0.1 },
  {
    lab: 'tensor-cores',
    appears: '989.4 ÷ 66.9 ≈ **14.8×**',
    stated: '14.8',
    value: peak('bf16') / peak('fp32'),
    step: 0.1,
  },
  { lab: 'tensor-cores', appears: 'illustrative 7.4×', stated: '7.4', value: bf16Tps / fp32Tps, step: 0.1 },
  {
    lab: 'tensor-cores',
    appears: 'well under the 14.8× bound',
    stated: '14.8',
    value: peak('bf16') / peak('fp32'),
    step: 0.1,
  },
  // memory-vs-compute
  {
    lab: 'memory-vs-compute',
    appears: '1/6 ≈ 0.17 FLOP per byte',
    stated: '0.17',
    value: rooflineIntensity('elementwise'),
    step: 0.01,
  },
  {
    lab: 'memory-vs-compute',
    appears: '8192 ÷ 3 ≈ 2,731 FLOP per byte',
    stated: '2,731',
    value: rooflineIntensity('matmul'),
    step: 1,
  },
  {
    lab: 'memory-vs-compute',
    appears: '(989.4 TFLOP/s ÷ 3.35 TB/s ≈\n      295 FLOP/byte)',
    stated: '295',
    value: ridgeFlopsPerByte(LAB_GPU, 'bf16')!,
    step: 1,
  },
  {
    lab: 'memory-vs-compute',
    appears: 'answer: 295',
    stated: '295',
    value: ridgeFlopsPerByte(LAB_GPU, 'bf16')!,
    step: 1,
  },
  {
    lab: 'memory-vs-compute',
    appears: '(1,979 ÷ 3.35 ≈ 591)',
    stated: '591',
    value: (2 * peak('bf16')) / 3.35,
    step: 1,
  },
  {
    lab: 'memory-vs-compute',
    appears: '1.555 TB/s ≈ 201)',
    stated: '201',
    value: ridgeFlopsPerByte(GPU_SPECS['a100-sxm-40gb'], 'bf16')!,
    step: 1,
  },
  {
    lab: 'memory-vs-compute',
    appears: '(295 × 6 ≈ 1,770)',
    stated: '1,770',
    value: ridgeFlopsPerByte(LAB_GPU, 'bf16')! / rooflineIntensity('elementwise'),
    step: 10,
  },
  // throttling
  {
    lab: 'throttling',
    appears: "57% of the H100 SXM's 700 W default",
    stated: '57',
    value: (100 * 400) / LAB_GPU.tdpWatts,
    step: 1,
  },
  {
    lab: 'throttling',
    appears: 'about 92% of max',
    stated: '92',
    value: 100 * restored.clockShare,
    step: 1,
  },
  { lab: 'throttling', appears: '1,820 MHz, at 700 W', stated: '1,820', value: restored.clockMHz, step: 10 },
  { lab: 'throttling', appears: 'and 1,210 MHz at 400 W', stated: '1,210', value: capped.clockMHz, step: 10 },
  { lab: 'throttling', appears: 'against 1,830 MHz', stated: '1,830', value: LAB_GPU.peakClockMHz, step: 1 },
  { lab: 'throttling', appears: 'peak of 989.4 TFLOP/s', stated: '989.4', value: peak('bf16'), step: 0.1 },
  { lab: 'throttling', appears: 'the 1,980 MHz maximum', stated: '1,980', value: SIM_GPU.smClockMaxMhz, step: 1 },
  {
    lab: 'throttling',
    appears: '1,210 ÷ 1,820 ≈ 0.67',
    stated: '0.67',
    value: capped.clockMHz / restored.clockMHz,
    step: 0.01,
  },
  { lab: 'throttling', appears: '(400 → 700 W is 1.75×)', stated: '1.75', value: LAB_GPU.tdpWatts / 400, step: 0.01 },
  {
    lab: 'throttling',
    appears: 'restored, 5.13 million',
    stated: '5.13',
    value: restored.tokensPerSec / 1e6,
    step: 0.01,
  },
  {
    lab: 'throttling',
    appears: 'makes 3.41 million',
    stated: '3.41',
    value: capped.tokensPerSec / 1e6,
    step: 0.01,
  },
  {
    lab: 'throttling',
    appears: 'answer: 33',
    stated: '33',
    value: 100 * (1 - capped.tokensPerSec / restored.tokensPerSec),
    step: 1,
  },
  {
    lab: 'throttling',
    appears: '- value: 50',
    stated: '50',
    value: 100 * (restored.tokensPerSec / capped.tokensPerSec - 1),
    step: 1,
  },
  { lab: 'throttling', appears: 'clock at 1,210 MHz under', stated: '1,210', value: capped.clockMHz, step: 10 },
  { lab: 'throttling', appears: 'and 1,820 MHz at the default', stated: '1,820', value: restored.clockMHz, step: 10 },
  // busy-in-time
  { lab: 'busy-in-time', appears: 'An H100 SXM has 132 SMs', stated: '132', value: LAB_GPU.smCount!, step: 1 },
  { lab: 'busy-in-time', appears: '33 / 132 = **25%**', stated: '25', value: (100 * 33) / LAB_GPU.smCount!, step: 1 },
  {
    lab: 'busy-in-time',
    appears: 'of a 400 W limit',
    stated: '400',
    value: GPU_SPECS['a100-sxm-80gb'].tdpWatts!,
    step: 1,
  },
  {
    lab: 'busy-in-time',
    appears: 'the other 290 W',
    stated: '290',
    value: GPU_SPECS['a100-sxm-80gb'].tdpWatts! - 110,
    step: 1,
  },
  {
    lab: 'busy-in-time',
    appears: 'at 28% of the power limit',
    stated: '28',
    value: (100 * 110) / GPU_SPECS['a100-sxm-80gb'].tdpWatts!,
    step: 1,
  },
  { lab: 'busy-in-time', appears: 'its\n      700 W limit', stated: '700', value: LAB_GPU.tdpWatts, step: 1 },
  {
    lab: 'busy-in-time',
    appears: '128 × 256 = 32,768 rows',
    stated: '32,768',
    value: SMALL_BATCH.batchAfter * SMALL_BATCH.seq,
    step: 1,
  },
];
