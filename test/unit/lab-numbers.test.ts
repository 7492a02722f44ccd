/**
 * Every hardware number a lab states, recomputed: from the spec table (src/lib/gpu-specs.ts), the workloads'
 * own defaults (read from workloads/*.py) and the arithmetic in src/lib/lab-physics.ts. A changed table or
 * script fails a stale text. A scan also finds every number with a hardware unit (TFLOP/s, TB/s, W, SMs,
 * FLOP/byte) in the lab files, so a new one cannot slip in unchecked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { GPU_IDS, GPU_SPECS, ridgeFlopsPerByte } from '../../src/lib/gpu-specs.ts';
import {
  clockScaleUnderLimit,
  gptBlockParams,
  gptFlopsPerToken,
  gptParams,
  gptTokensPerSec,
  ILLUSTRATIVE,
  LAB_GPU,
  labPeakFlops,
  MFU_GPT,
  mlpParams,
  ROOFLINE_N,
  rooflineIntensity,
  SMALL_BATCH,
  SUSTAINED,
  SUSTAINED_WANT_WATTS,
  sustainedTokensPerSec,
  TENSOR_MLP,
} from '../../src/lib/lab-physics.ts';
import { splitFrontmatter } from '../../src/data/load-deck-files.ts';
import { LabSchema, type Lab } from '../../src/schemas/lab.ts';
import { SIM_GPU } from '../../src/lib/sim/model.ts';

const root = process.cwd();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const LABS = [
  'idle-gpu-cost',
  'data-loader-starvation',
  'busy-in-time',
  'tensor-cores',
  'memory-vs-compute',
  'throttling',
  'measure-mfu',
] as const;
type LabId = (typeof LABS)[number];
const text = Object.fromEntries(LABS.map((id) => [id, read(`content/labs/${id}.md`)])) as Record<LabId, string>;
const lab = (id: LabId): Lab => LabSchema.parse(splitFrontmatter(text[id]).data);

/** The integer defaults a workload's argparse declares, e.g. { layers: 12, 'd-model': 1024 }. */
function scriptDefaults(script: string): Record<string, number> {
  const src = read(`workloads/${script}`);
  const out: Record<string, number> = {};
  for (const m of src.matchAll(/add_argument\("--([\w-]+)", type=int, default=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

/** A number as written in a lab ("53,100", "1.26e9", "14.8"). */
const num = (s: string): number => Number(s.replace(/,/g, ''));
const peak = (dtype: 'fp32' | 'bf16'): number => LAB_GPU.peakTflops[dtype]!;

/**
 * One stated number: the text as it appears in the lab, the value recomputed, and the rounding the text uses
 * (the stated figure must be within half a step of the recomputed one).
 */
interface Stated {
  lab: LabId;
  /** Exact text in the lab file, containing the number once, e.g. "≈ 53,100 tokens/s". */
  appears: string;
  /** The number inside `appears`, as written. */
  stated: string;
  value: number;
  step: number;
}

const gpt = gptFlopsPerToken(MFU_GPT);
const fp32Tps = gptTokensPerSec(false);
const bf16Tps = gptTokensPerSec(true);
const restoredScale = clockScaleUnderLimit(SUSTAINED_WANT_WATTS, LAB_GPU.tdpWatts);
const thermal = 0.92; // the throttled scenario's airflow factor (src/lib/sim/scenarios/bound.ts)
const cappedScale = thermal * clockScaleUnderLimit(SUSTAINED_WANT_WATTS * thermal ** 2.5, 400);
const mfuDebrief = (240_000 * 1.26e9) / labPeakFlops('bf16');

const STATED: Stated[] = [
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
    appears: '(700 ÷ 800)^0.4 ≈\n      95% of max',
    stated: '95',
    value: 100 * restoredScale,
    step: 1,
  },
  {
    lab: 'throttling',
    appears: 'about 1,880 MHz',
    stated: '1,880',
    value: SIM_GPU.smClockMaxMhz * restoredScale,
    step: 10,
  },
  { lab: 'throttling', appears: '(400 → 700 W is 1.75×)', stated: '1.75', value: LAB_GPU.tdpWatts / 400, step: 0.01 },
  {
    lab: 'throttling',
    appears: 'restored, 4.89 million',
    stated: '4.89',
    value: sustainedTokensPerSec(restoredScale) / 1e6,
    step: 0.01,
  },
  {
    lab: 'throttling',
    appears: 'makes 3.91 million',
    stated: '3.91',
    value: sustainedTokensPerSec(cappedScale) / 1e6,
    step: 0.01,
  },
  { lab: 'throttling', appears: 'answer: 20', stated: '20', value: 100 * (1 - cappedScale / restoredScale), step: 1 },
  { lab: 'throttling', appears: 'clock at 76% of max', stated: '76', value: 100 * cappedScale, step: 1 },
  // busy-in-time
  { lab: 'busy-in-time', appears: 'An H100 SXM has 132 SMs', stated: '132', value: LAB_GPU.smCount!, step: 1 },
  { lab: 'busy-in-time', appears: '33 / 132 = **25%**', stated: '25', value: (100 * 33) / LAB_GPU.smCount!, step: 1 },
  {
    lab: 'busy-in-time',
    appears: 'of a 400 W limit',
    stated: '400',
    value: GPU_SPECS['a100-sxm-80gb'].tdpWatts,
    step: 1,
  },
  {
    lab: 'busy-in-time',
    appears: 'the other 290 W',
    stated: '290',
    value: GPU_SPECS['a100-sxm-80gb'].tdpWatts - 110,
    step: 1,
  },
  {
    lab: 'busy-in-time',
    appears: 'at 28% of the power limit',
    stated: '28',
    value: (100 * 110) / GPU_SPECS['a100-sxm-80gb'].tdpWatts,
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

describe('the workloads the labs describe', () => {
  test("the lab models are the scripts' own defaults", () => {
    const mfu = scriptDefaults('mfu.py');
    expect([mfu['vocab'], mfu['d-model'], mfu['layers'], mfu['heads'], mfu['seq'], mfu['batch']]).toEqual([
      MFU_GPT.vocab,
      MFU_GPT.dModel,
      MFU_GPT.layers,
      MFU_GPT.heads,
      MFU_GPT.seq,
      MFU_GPT.batch,
    ]);
    const tc = scriptDefaults('tensor_cores.py');
    expect([tc['tokens'], tc['width'], tc['layers']]).toEqual([TENSOR_MLP.tokens, TENSOR_MLP.width, TENSOR_MLP.layers]);
    const sl = scriptDefaults('sustained_load.py');
    expect([sl['tokens'], sl['width']]).toEqual([SUSTAINED.tokens, SUSTAINED.width]);
    expect(scriptDefaults('roofline.py')['n']).toBe(ROOFLINE_N);
    const sb = scriptDefaults('small_batch.py');
    expect([sb['seq'], sb['width'], sb['layers'], sb['batch-size']]).toEqual([
      SMALL_BATCH.seq,
      SMALL_BATCH.width,
      SMALL_BATCH.layers,
      SMALL_BATCH.batchBefore,
    ]);
    expect(lab('busy-in-time').steps.map((s) => s.run)).toEqual([
      `python workloads/small_batch.py --batch-size ${SMALL_BATCH.batchBefore}`,
      `python workloads/small_batch.py --batch-size ${SMALL_BATCH.batchAfter}`,
    ]);
  });

  test('mfu.py counts the parameters and FLOPs the lab states (PaLM: 6N + 12·L·H·Q·T)', () => {
    expect(gptParams(MFU_GPT)).toBe(184_711_168);
    expect(gpt.total).toBe(1_259_261_952);
    const src = read('workloads/mfu.py');
    expect(src).toContain('6 * n + 12 * args.layers * args.heads * (args.d_model // args.heads) * args.seq');
    expect(src).toContain('- model.tok.weight.numel() - model.pos.weight.numel()');
    expect(Math.abs(lab('measure-mfu').mfu!.flopsPerToken / gpt.total - 1)).toBeLessThan(0.005);
  });

  test('roofline.py runs the op the lab describes: one add, 1 FLOP per 6 bytes', () => {
    const src = read('workloads/roofline.py');
    expect(src).toContain('return a + b');
    expect(src).toContain('flops, nbytes = n * n, 3 * 2 * n * n');
    expect(text['memory-vs-compute']).toContain('`a + b`');
    expect(text['memory-vs-compute']).not.toMatch(/GELU, scale/);
  });

  test("the workloads' Python peak table is the spec table's dense BF16 column", () => {
    const src = read('workloads/_common.py');
    const fn = src.slice(src.indexOf('def dense_peak_tflops'));
    const returned = [...fn.matchAll(/(?:return|else) (\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
    expect(returned).toEqual([
      GPU_SPECS.h200.peakTflops.bf16,
      GPU_SPECS['h100-pcie'].peakTflops.bf16,
      GPU_SPECS['h100-sxm'].peakTflops.bf16,
      GPU_SPECS['a100-sxm-80gb'].peakTflops.bf16,
      GPU_SPECS.l4.peakTflops.bf16,
    ]);
  });

  test('the illustrative efficiencies stay physically possible: under every peak, fp32 under its own', () => {
    expect(ILLUSTRATIVE.gptBf16Mfu).toBeLessThan(0.45); // below what well-tuned large models reach
    expect((fp32Tps * gpt.total) / labPeakFlops('fp32')).toBeLessThanOrEqual(1);
    expect(bf16Tps / fp32Tps).toBeLessThan(peak('bf16') / peak('fp32'));
    expect(sustainedTokensPerSec(1) * 2 * SUSTAINED.width ** 2).toBeLessThan(labPeakFlops('bf16'));
    expect(SUSTAINED_WANT_WATTS).toBeGreaterThan(LAB_GPU.tdpWatts); // heavy dense math sits at the cap
  });
});

describe('every hardware number a lab states', () => {
  test.each(STATED.map((s) => [`${s.lab}: ${s.appears.replace(/\s+/g, ' ')}`, s] as const))('%s', (_name, s) => {
    expect(text[s.lab], `"${s.appears}" is not in content/labs/${s.lab}.md`).toContain(s.appears);
    expect(s.appears).toContain(s.stated);
    expect(Math.abs(num(s.stated) - s.value), `stated ${s.stated}, recomputed ${s.value}`).toBeLessThanOrEqual(
      s.step / 2 + 1e-9,
    );
  });

  /** Values a hardware unit may carry in a lab text, from the table (each in the unit as written). */
  const table = {
    tflops: GPU_IDS.flatMap((id) => Object.values(GPU_SPECS[id].peakTflops)).filter((x): x is number => x !== null),
    tbps: GPU_IDS.map((id) => GPU_SPECS[id].memBandwidthGBps / 1000),
    watts: GPU_IDS.map((id) => GPU_SPECS[id].tdpWatts),
    sms: GPU_IDS.map((id) => GPU_SPECS[id].smCount).filter((x): x is number => x !== null),
    intensity: [
      ...GPU_IDS.map((id) => ridgeFlopsPerByte(GPU_SPECS[id], 'bf16')).filter((x): x is number => x !== null),
      rooflineIntensity('elementwise'),
      rooflineIntensity('matmul'),
    ],
  };
  /** Numbers with a hardware unit that are not datasheet figures: each named, with why it is there. */
  const NOT_FROM_THE_TABLE: Partial<Record<LabId, Record<string, number[]>>> = {
    'measure-mfu': {
      // 2:4-sparse peak (2 × 989.4), named only to warn against it; 240,000 × 1.26e9, the debrief's achieved rate.
      tflops: [2 * peak('bf16'), (240_000 * 1.26e9) / 1e12],
    },
    'memory-vs-compute': { tflops: [2 * peak('bf16')] },
    // A user's cap set with nvidia-smi -pl, and the GEMM's illustrative demand at full clock.
    throttling: { watts: [400, SUSTAINED_WANT_WATTS] },
    // A reading on the A100 in the debrief, and what is left of the 400 W limit.
    'busy-in-time': { watts: [110, 290] },
    // An idle H100's reading in the debrief.
    'idle-gpu-cost': { watts: [72] },
  };
  const UNITS: [RegExp, keyof typeof table, (v: number) => number][] = [
    [/^(TFLOP\/s|TFLOPS)/, 'tflops', (v) => v],
    [/^FLOP\/s/, 'tflops', (v) => v / 1e12],
    [/^TB\/s/, 'tbps', (v) => v],
    [/^W\b/, 'watts', (v) => v],
    [/^SMs?\b/, 'sms', (v) => v],
    [/^(FLOP\/byte|FLOP per byte|FLOP\/B)/, 'intensity', (v) => v],
  ];

  test.each(LABS)('%s: every number with a hardware unit is a table figure or named above', (id) => {
    const found: string[] = [];
    for (const m of text[id].matchAll(/(?:(\d+)\/)?(\d[\d,]*(?:\.\d+)?)(?:e(\d+))?\s*(?=[A-Z])/g)) {
      const after = text[id].slice(m.index + m[0].length);
      const unit = UNITS.find(([re]) => re.test(after));
      if (!unit) continue;
      const [, kind, scale] = unit;
      const base = num(m[2]!) * 10 ** Number(m[3] ?? 0);
      const value = scale(m[1] ? Number(m[1]) / base : base);
      const allowed = [...table[kind], ...(NOT_FROM_THE_TABLE[id]?.[kind] ?? [])];
      const ok = allowed.some((a) => Math.abs(a - value) <= Math.max(0.005 * a, 0.01));
      if (!ok) found.push(`${m[0]}${after.slice(0, 12)} (${value} ${kind})`);
    }
    expect(found, `numbers with a hardware unit that no table figure explains in ${id}`).toEqual([]);
  });
});
