/**
 * Every hardware number a lab states, recomputed: from the spec table (src/lib/gpu-specs.ts), the workloads'
 * own defaults (read from workloads/*.py) and the arithmetic in src/lib/lab/physics.ts. A changed table or
 * script fails a stale text. A scan also finds every number with a hardware unit (TFLOP/s, TB/s, W, SMs,
 * FLOP/byte) in the lab files, so a new one cannot slip in unchecked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { GPU_IDS, GPU_SPECS, normaliseGpuName, ridgeFlopsPerByte } from '../../src/lib/gpu-specs.ts';
import { powerClocks } from '../../src/lib/figures/power-clocks.ts';
import {
  gptParams,
  ILLUSTRATIVE,
  LAB_GPU,
  labPeakFlops,
  MFU_GPT,
  ROOFLINE_N,
  rooflineIntensity,
  SMALL_BATCH,
  SUSTAINED,
  SUSTAINED_WANT_WATTS,
  sustainedTokensPerSec,
  sustainedUnderLimit,
  TENSOR_MLP,
} from '../../src/lib/lab/physics.ts';
import { splitFrontmatter } from '../../src/data/load-deck-files.ts';
import { LabSchema, type Lab } from '../../src/schemas/lab.ts';
import { bf16Tps, fp32Tps, gpt, LABS, num, peak, STATED, type LabId } from './lab-numbers-stated.ts';

const root = process.cwd();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const text = Object.fromEntries(LABS.map((id) => [id, read(`content/labs/${id}.md`)])) as Record<LabId, string>;
const lab = (id: LabId): Lab => LabSchema.parse(splitFrontmatter(text[id]).data);

/** The integer defaults a workload's argparse declares, e.g. { layers: 12, 'd-model': 1024 }. */
function scriptDefaults(script: string): Record<string, number> {
  const src = read(`workloads/${script}`);
  const out: Record<string, number> = {};
  for (const m of src.matchAll(/add_argument\("--([\w-]+)", type=int, default=(\d+)/g)) out[m[1]!] = Number(m[2]);
  return out;
}

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

  test("the workloads' Python peak table is the spec table's dense BF16 column, name for name", () => {
    const src = read('workloads/_common.py');
    const dict = src.slice(src.indexOf('DENSE_BF16_TFLOPS'), src.indexOf('\n}\n', src.indexOf('DENSE_BF16_TFLOPS')));
    const python = Object.fromEntries(
      [...dict.matchAll(/^ {4}"([^"]+)": (None|\d+(?:\.\d+)?),/gm)].map((m) => [
        m[1],
        m[2] === 'None' ? null : Number(m[2]),
      ]),
    );
    const table = Object.fromEntries(
      GPU_IDS.flatMap((id) => GPU_SPECS[id].nvmlNames.map((n) => [normaliseGpuName(n), GPU_SPECS[id].peakTflops.bf16])),
    );
    expect(python).toEqual(table);
    // The Python lookup is exact too: no substring match that would give GH200 or H100 NVL a neighbour's peak.
    const fn = src.slice(src.indexOf('def dense_peak_tflops'));
    expect(fn.slice(0, fn.indexOf('\n\n\n') > 0 ? fn.indexOf('\n\n\n') : undefined)).not.toMatch(/ in name|re\.search/);
  });

  test('the illustrative efficiencies stay physically possible: under every peak, fp32 under its own', () => {
    expect(ILLUSTRATIVE.gptBf16Mfu).toBeLessThan(0.45); // below what well-tuned large models reach
    expect((fp32Tps * gpt.total) / labPeakFlops('fp32')).toBeLessThanOrEqual(1);
    expect(bf16Tps / fp32Tps).toBeLessThan(peak('bf16') / peak('fp32'));
    // Even at the max SM clock (1,980 MHz, 8% above the 1,830 MHz the peak is defined at) the GEMM stays under it.
    expect(sustainedTokensPerSec(LAB_GPU.maxSmClockMHz) * 2 * SUSTAINED.width ** 2).toBeLessThan(labPeakFlops('bf16'));
    expect(SUSTAINED_WANT_WATTS).toBeGreaterThan(LAB_GPU.tdpWatts); // heavy dense math sits at the cap
  });

  test('tensor speed scales against the clock the peak is defined at (1,830 MHz), not the max SM clock', () => {
    expect([LAB_GPU.peakClockMHz, LAB_GPU.maxSmClockMHz]).toEqual([1830, 1980]);
    // 989.4e12 ÷ (132 SMs × 4,096 dense FLOPs per SM per clock) = 1.83 GHz.
    expect((LAB_GPU.peakTflops.bf16! * 1e12) / (LAB_GPU.smCount * 4096) / 1e6).toBeCloseTo(1830, 0);
    const at = (mhz: number) => sustainedTokensPerSec(mhz) / sustainedTokensPerSec(LAB_GPU.peakClockMHz);
    expect(at(1980)).toBeCloseTo(1980 / 1830, 9);
    expect(at(1210)).toBeCloseTo(1210 / 1830, 9);
  });

  test('one power model: the lab’s 400 W cap costs what the power card’s figure computes (about a third)', () => {
    const capped = sustainedUnderLimit(400);
    const full = sustainedUnderLimit(LAB_GPU.tdpWatts);
    const figure = (limit: number) => powerClocks('h100-sxm', limit, 60, SUSTAINED_WANT_WATTS / LAB_GPU.tdpWatts);
    expect(capped.clockMHz).toBeCloseTo(figure(400).clockMHz, 6);
    expect(full.clockMHz).toBeCloseTo(figure(700).clockMHz, 6);
    expect(capped.powerWatts).toBeCloseTo(400, 3);
    const lost = 1 - capped.tokensPerSec / full.tokensPerSec;
    expect(lost).toBeCloseTo(1 - figure(400).peakShare / figure(700).peakShare, 9);
    expect(lost).toBeGreaterThan(0.28);
    expect(lost).toBeLessThan(0.4);
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
    watts: GPU_IDS.map((id) => GPU_SPECS[id].tdpWatts).filter((x): x is number => x !== null),
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
