import { describe, expect, test } from 'vitest';
import { idleCost } from '../../src/lib/figures/cost-of-idle.ts';
import { batchCpuMs, loaderLongRun, loaderSteadyState, loaderTimeline } from '../../src/lib/figures/data-loader.ts';
import { parseFigureLine } from '../../src/lib/figures/directive.ts';
import { figureHtml } from '../../src/lib/figures/html.ts';
import { expandFigureSlots, figureSlot } from '../../src/lib/figures/slots.ts';
import { kernelTimeline } from '../../src/lib/figures/kernel-timeline.ts';
import { kvBytesPerToken, sequencesThatFit } from '../../src/lib/figures/kv-cache.ts';
import { mfu } from '../../src/lib/figures/mfu.ts';
import { FIGURES, resolveFigure } from '../../src/lib/figures/registry.ts';
import { FIGURE_H } from '../../src/lib/figures/types.ts';
import { roofline } from '../../src/lib/figures/roofline.ts';
import { busyShare, pointReads } from '../../src/lib/figures/sampling.ts';
import { stragglerStep } from '../../src/lib/figures/straggler.ts';
import { gpuLevelActivity, MIG_SMS } from '../../src/lib/figures/sharing.ts';
import { energyPerToken } from '../../src/lib/figures/energy.ts';
import { fmt } from '../../src/lib/figures/format.ts';
import { launchBound } from '../../src/lib/figures/launch-overhead.ts';
import { decodeStep } from '../../src/lib/figures/decode-batching.ts';
import { FIGURE_LOADERS } from '../../src/client/figure-hydrate.ts';
import { cardFigure } from './card-figure.ts';

describe('kernel timeline (content/cards/meters/gpu-util.md)', () => {
  test('N/5 SMs busy the whole interval is 20% SM activity at 100% GPU-Util (gpu-facts 1.5, 2.4)', () => {
    const r = kernelTimeline(1000, 0, 132 / 5);
    expect(r.gpuUtil).toBe(1);
    expect(r.smActivity).toBeCloseTo(0.2, 6);
  });
  test('the card’s example: GPU-Util 95% with SM activity about 0.3', () => {
    const { view } = cardFigure('content/cards/meters/gpu-util.md');
    expect(view.readout).toMatch(/^GPU-Util reads 95% but SM activity is 30%/);
  });
  test('a longer gap lowers GPU-Util', () => {
    expect(kernelTimeline(50, 50, 132).gpuUtil).toBe(0.5);
  });
});

describe('roofline (content/cards/training/memory-bound-vs-compute-bound.md)', () => {
  test('a batch-of-8 weight multiply (8 FLOP/byte) is memory-bound on H100 at 26.8 TFLOP/s', () => {
    const r = roofline('h100-sxm', 'bf16', 8)!;
    expect(r.memoryBound).toBe(true);
    expect(r.attainableTflops).toBeCloseTo(26.8, 6);
    const { view } = cardFigure('content/cards/training/memory-bound-vs-compute-bound.md');
    expect(view.readout).toContain('memory-bound, with the ridge at 295 FLOP/byte');
  });
  test('a square 4096 matmul (≈1,365 FLOP/byte) reaches the dense peak', () => {
    const r = roofline('h100-sxm', 'bf16', 1365)!;
    expect(r.memoryBound).toBe(false);
    expect(r.attainableTflops).toBe(989.4);
  });
  test('H200 lifts a memory-bound kernel by its bandwidth, 4.8 ÷ 3.35', () => {
    const ratio = roofline('h200', 'bf16', 8)!.attainableTflops / roofline('h100-sxm', 'bf16', 8)!.attainableTflops;
    expect(ratio).toBeCloseTo(4.8 / 3.35, 6);
  });
  test('FP8 on an A100 says there is no such peak instead of drawing one', () => {
    expect(roofline('a100-sxm-80gb', 'fp8', 100)).toBeNull();
    const f = FIGURES['roofline']!;
    expect(f.view({ intensity: 100, gpu: 'a100-sxm-80gb', dtype: 'fp8' }).readout).toMatch(/no FP8 Tensor peak/);
  });
});

describe('data-loader pipeline (content/cards/training/data-loader-bottleneck.md)', () => {
  test('2 workers at 570 ms a batch against a 100 ms step: GPU-Util about 35%, as in the card', () => {
    expect(loaderSteadyState(2, 570, 100, 256).gpuUtil).toBeCloseTo(0.351, 3);
    const { view } = cardFigure('content/cards/training/data-loader-bottleneck.md');
    expect(view.readout).toContain('GPU-Util about 35%');
  });
  test('12 workers fill the queue: samples/s rise by the GPU’s busy share (the card’s “about 2.5×” or more)', () => {
    const before = loaderSteadyState(2, 570, 100, 256);
    const after = loaderSteadyState(12, 570, 100, 256);
    expect(after.gpuUtil).toBe(1);
    expect(after.samplesPerSec / before.samplesPerSec).toBeCloseTo(1 / before.gpuUtil, 6);
    expect(after.samplesPerSec / before.samplesPerSec).toBeGreaterThan(2.5);
  });
  test('the simulated pipeline never beats the best case and reaches it with enough prefetch', () => {
    for (const [w, c, g] of [
      [2, 570, 100],
      [4, 400, 100],
      [8, 300, 60],
      [3, 90, 50],
    ] as const) {
      const best = loaderSteadyState(w, c, g, 1).gpuUtil;
      for (const p of [1, 2, 4, 8]) expect(loaderLongRun(w, c, g, p, 1).gpuUtil).toBeLessThanOrEqual(best + 1e-9);
      expect(loaderLongRun(w, c, g, 8, 1).gpuUtil).toBeCloseTo(best, 2);
    }
  });
  test('prefetch absorbs uneven batches: 4 workers just fast enough stall the GPU at prefetch 1, not at 4', () => {
    expect(loaderLongRun(4, 400, 100, 1, 256).gpuUtil).toBeLessThan(0.75);
    expect(loaderLongRun(4, 400, 100, 4, 256).gpuUtil).toBe(1);
    const f = FIGURES['data-loader']!;
    const base = { workers: 4, cpuMs: 400, gpuMs: 100, batchSize: 256 };
    expect(f.view({ ...base, prefetch: 1 }).readout).toContain('more prefetch would help');
    expect(f.view({ ...base, prefetch: 4 }).readout).toContain('the GPU is the limit');
  });
  test('the first step waits for the first batch; batches reach the GPU in order', () => {
    const steps = loaderTimeline(4, 100, 500, 2, 50);
    expect(steps[0]!.startMs).toBe(batchCpuMs(100, 0));
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.startMs).toBeGreaterThanOrEqual(steps[i - 1]!.endMs);
  });
});

describe('cost of idle (content/cards/serving/cost-of-idle-gpus.md)', () => {
  test('8 GPUs busy 6 h a day leave 4,320 idle GPU-hours a month', () => {
    const r = idleCost(8, 3, 18 / 24);
    expect(r.idleGpuHours).toBe(4320);
    expect(r.idleDollars).toBe(12960);
    const { view } = cardFigure('content/cards/serving/cost-of-idle-gpus.md');
    expect(view.readout).toBe(
      '8 GPUs idle 75% of a 30-day month waste 4,320 GPU-hours: $12,960 at $3.00 per GPU-hour.',
    );
  });
});

describe('MFU calculator (content/cards/useful-work/mfu.md)', () => {
  test('7B at 75,000 tokens/s on 8 H100 SXM is about 40% MFU', () => {
    const r = mfu(7, 75_000, 8, 'h100-sxm', 'bf16')!;
    expect(r.flopsPerToken).toBe(4.2e10);
    expect(r.mfu).toBeCloseTo(0.398, 3);
    expect(cardFigure('content/cards/useful-work/mfu.md').view.readout).toMatch(/^MFU is 40%/);
  });
  test('the card’s 30,000 tokens/s example is about 16%', () => {
    expect(Math.round(mfu(7, 30_000, 8, 'h100-sxm', 'bf16')!.mfu * 100)).toBe(16);
  });
  test('A100 BF16 divides by 312 TFLOP/s, the dense peak', () => {
    expect(mfu(1, 1, 1, 'a100-sxm-80gb', 'bf16')!.peakFlops).toBe(312e12);
  });
});

describe('KV-cache sizing (content/cards/serving/kv-cache-sizing.md)', () => {
  test('a Llama-3-70B shape in BF16 holds 327,680 bytes per token, 2.68 GB per 8K sequence', () => {
    const perToken = kvBytesPerToken(80, 8, 128, 2);
    expect(perToken).toBe(327_680);
    expect((perToken * 8192) / 1e9).toBeCloseTo(2.68, 2);
  });
  test('55 GB of cache holds 20 sequences of 8K; FP8 doubles that to 40; MHA and MQA bytes as in the table', () => {
    expect(sequencesThatFit(55e9, kvBytesPerToken(80, 8, 128, 2), 8192)).toBe(20);
    expect(sequencesThatFit(55e9, kvBytesPerToken(80, 8, 128, 1), 8192)).toBe(40);
    expect(kvBytesPerToken(80, 64, 128, 2)).toBe(2_621_440);
    expect(kvBytesPerToken(80, 1, 128, 2)).toBe(40_960);
  });
  test('the card’s figure says whether the batch fits on the GPU it names', () => {
    expect(cardFigure('content/cards/serving/kv-cache-sizing.md').view.readout).toContain('327,680 bytes per token');
  });
});

describe('launch overhead and CUDA Graphs (content/cards/training/launch-overhead-cuda-graphs.md)', () => {
  test('1,200 launches at 8 µs against 6 ms of GPU work: 9.6 ms steps, GPU-Util near 62%', () => {
    const r = launchBound(5, 8, 1200, false);
    expect(r.cpuUs).toBe(9600);
    expect(r.gpuUs).toBe(6000);
    expect(r.gpuUtil).toBe(0.625);
    expect(cardFigure('content/cards/training/launch-overhead-cuda-graphs.md').view.readout).toContain(
      'the CPU launching kernels sets the pace',
    );
  });
  test('a graph replays the step with one launch: the GPU sets the pace', () => {
    const r = launchBound(5, 8, 1200, true);
    expect(r.stepUs).toBe(6008);
    expect(r.gpuUtil).toBeGreaterThan(0.99);
  });
});

describe('inference batching (content/cards/useful-work/mbu-for-inference.md)', () => {
  test('7B BF16 at batch 1: ≈ 4.2 ms and ≈ 240 tokens/s on H100 SXM, ≈ 2.9 ms and ≈ 340 on H200', () => {
    const h100 = decodeStep(7, 2, 1, 0, 131_072, 'h100-sxm');
    expect(h100.stepMs).toBeCloseTo(4.18, 2);
    expect(Math.round(h100.tokensPerSec / 10) * 10).toBe(240);
    const h200 = decodeStep(7, 2, 1, 0, 131_072, 'h200');
    expect(h200.stepMs).toBeCloseTo(2.92, 2);
    expect(Math.round(h200.tokensPerSec / 10) * 10).toBe(340);
  });
  test('a measured 7 ms per token is MBU ≈ 60%', () => {
    expect(decodeStep(7, 2, 1, 0, 131_072, 'h100-sxm').memMs / 7).toBeCloseTo(0.6, 2);
  });
  test('batching: tokens/s climbs steeply while the step grows slowly, until compute binds', () => {
    const one = decodeStep(7, 2, 1, 1024, 131_072, 'h100-sxm');
    const many = decodeStep(7, 2, 32, 1024, 131_072, 'h100-sxm');
    expect(many.tokensPerSec / one.tokensPerSec).toBeGreaterThan(20);
    expect(many.stepMs / one.stepMs).toBeLessThan(1.5);
    const huge = decodeStep(7, 2, 512, 0, 131_072, 'h100-sxm');
    expect(huge.computeMs).toBeGreaterThan(huge.memMs);
    expect(huge.mbu).toBeLessThan(1);
  });
  test('FP8 weights use the FP8 compute limit: on H100 compute binds at the same batch as BF16 (≈ 295), not half', () => {
    const firstComputeBound = (bytes: number, gpu: string) => {
      for (let b = 1; b <= 1024; b++)
        if (decodeStep(7, bytes, b, 0, 131_072, gpu).computeMs > decodeStep(7, bytes, b, 0, 131_072, gpu).memMs)
          return b;
      return null;
    };
    const fp8 = decodeStep(7, 1, 200, 0, 131_072, 'h100-sxm');
    expect([fp8.computeDtype, fp8.peakTflops]).toEqual(['fp8', 1978.9]);
    // Weights 7e9 B ÷ 3.35e12 B/s = 2.09 ms; 2 × 7e9 × b ÷ 1978.9e12 passes it at b = 296 (the BF16 peak would at 148).
    expect(firstComputeBound(1, 'h100-sxm')).toBe(296);
    expect(firstComputeBound(2, 'h100-sxm')).toBe(296);
    // A100 has no FP8 Tensor Cores: FP8 weights are upcast and the BF16 peak bounds compute.
    expect(decodeStep(7, 1, 1, 0, 131_072, 'a100-sxm-80gb')).toMatchObject({ computeDtype: 'bf16', peakTflops: 312 });
  });
});

describe('sampling and averaging (content/cards/meters/sampling-periods-and-averaging.md)', () => {
  test('52 s at 100% and 8 s at 0% every minute averages to 87% over 5 minutes', () => {
    expect(busyShare(0, 300, 8, 60)).toBeCloseTo(52 / 60, 9);
    expect(cardFigure('content/cards/meters/sampling-periods-and-averaging.md').view.readout).toContain(
      'a 300 s average reads a steady 87%',
    );
  });
  test('1 s rows show the stall at 0%; point reads slower than the stall can miss it entirely', () => {
    expect(busyShare(55, 56, 8, 60)).toBe(0);
    expect(busyShare(10, 11, 8, 60)).toBe(1);
    // Reads every 60 s land at the end of each minute, inside the stall: every one reads 0.
    expect(pointReads(60, 180, 8, 60)).toEqual([0, 0, 0]);
    // Reads every 30 s at 30 s past: half in the stall, half not.
    expect(pointReads(30, 180, 8, 60)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(pointReads(20, 180, 8, 60).filter((r) => r === 0).length).toBe(3);
  });
});

describe('all-reduce and a straggler (content/cards/training/distributed-overlap-and-stragglers.md)', () => {
  test('one rank at 520 ms, the others at 400: they wait 120 ms, about 23% of every step', () => {
    const r = stragglerStep(400, 520, 0);
    expect(r.waitMs).toBe(120);
    expect(Math.round(r.waitShare * 100)).toBe(23);
    expect(cardFigure('content/cards/training/distributed-overlap-and-stragglers.md').view.readout).toMatch(
      /^7 ranks wait 120 ms of every 520 ms step \(23%\)/,
    );
  });
  test('the translation example: 470 ms against 300 ms with 25 ms of transfer puts the others ~190 ms in NCCL', () => {
    const r = stragglerStep(300, 470, 25);
    expect(r.ncclMsSlow).toBe(25);
    expect(r.ncclMsOthers).toBe(195);
  });
});

describe('MIG meters (content/cards/serving/mig.md)', () => {
  test('two 3g.20gb at 98.6% read about 84.5% at GPU level: 84 of 98 SMs (gpu-facts 2.15)', () => {
    expect(gpuLevelActivity(MIG_SMS['3g.20gb'], 2, 0.986)).toBeCloseTo(0.845, 3);
    expect(cardFigure('content/cards/serving/mig.md').view.readout).toContain(
      'hold 84 of 98 SMs, so the whole GPU reads 84.5%',
    );
  });
  test('one busy 1g.5gb of seven at 100% is a seventh of the GPU', () => {
    expect(gpuLevelActivity(MIG_SMS['1g.5gb'], 1, 1)).toBeCloseTo(1 / 7, 9);
  });
});

describe('energy per token (content/cards/useful-work/energy-perf-per-watt-power-capping.md)', () => {
  test('450 W at 3,000 tokens/s is 0.15 J per token, ≈ 0.042 kWh per million tokens', () => {
    const r = energyPerToken(450, 3000);
    expect(r.joulesPerToken).toBe(0.15);
    expect(r.kWhPerMillionTokens).toBeCloseTo(0.042, 3);
    expect(cardFigure('content/cards/useful-work/energy-perf-per-watt-power-capping.md').view.readout).toBe(
      '450 W at 3,000 tokens/s is 0.15 J per token: 0.0417 kWh of GPU energy per million tokens.',
    );
  });
  test('the card’s sweep: 650 W ÷ 3,000 ≈ 0.217, 440 ÷ 2,700 ≈ 0.163, 345 ÷ 2,000 ≈ 0.173 J per token', () => {
    expect(energyPerToken(650, 3000).joulesPerToken).toBeCloseTo(0.217, 3);
    expect(energyPerToken(440, 2700).joulesPerToken).toBeCloseTo(0.163, 3);
    expect(energyPerToken(345, 2000).joulesPerToken).toBe(0.1725);
    expect(fmt(energyPerToken(345, 2000).joulesPerToken)).toBe('0.173'); // rounded as the card rounds it
  });
});

describe('figure directives', () => {
  test('a slot in rendered Markdown becomes the figure, numbered in page order, from the current code', () => {
    const html = `<p>a</p>${figureSlot({ name: 'mfu', gpus: '16' })}<p>b</p>${figureSlot({ name: 'roofline' })}`;
    const out = expandFigureSlots(html);
    const mfuFigure = resolveFigure({ name: 'mfu', gpus: '16' });
    expect(out).toContain(figureHtml(mfuFigure.figure, mfuFigure.values, 'fig-1'));
    expect(out).toContain('<figure class="fig" id="fig-2" data-figure="roofline"');
    expect(out).not.toContain('data-figure-slot');
  });
  test('the browser can load every figure a card may place', () => {
    expect(Object.keys(FIGURE_LOADERS).sort()).toEqual(Object.keys(FIGURES).sort());
  });
  test('reads straight and typographic quotes and bare numbers', () => {
    expect(parseFigureLine('::figure{name="mfu" gpus=8}')).toEqual({ name: 'mfu', gpus: '8' });
    expect(parseFigureLine('::figure{name=“roofline” gpu=“h200”}')).toEqual({ name: 'roofline', gpu: 'h200' });
  });
  test('an unknown figure, value or setting is an error that names the choices', () => {
    expect(() => resolveFigure({ name: 'rooflin' })).toThrow(/unknown figure "rooflin"; known figures: .*roofline/);
    expect(() => resolveFigure({ name: 'roofline', gpus: '2' })).toThrow(
      /has no value "gpus"; it takes intensity, gpu, dtype/,
    );
    expect(() => resolveFigure({ name: 'roofline', gpu: 'v100' })).toThrow(/gpu="v100" is not one of .*h100-sxm/);
    expect(() => resolveFigure({ name: 'mfu', gpus: '0' })).toThrow(/gpus=0 must be a number from 1 to 512/);
    expect(() => parseFigureLine('::figure{name="mfu" gpus}')).toThrow(/write key=value/);
    expect(() => parseFigureLine('::figure name="mfu"')).toThrow(/on a line of its own/);
  });
  test('every figure renders a figure, caption, labelled controls, an SVG and a polite readout', () => {
    for (const f of Object.values(FIGURES)) {
      const { values } = resolveFigure({ name: f.name });
      const html = figureHtml(f, values, 'fig-1');
      expect(html).toMatch(/^<figure class="fig" id="fig-1"/);
      expect(html).toContain('<figcaption');
      expect(html).toContain('aria-live="polite"');
      for (const c of f.controls) expect(html).toContain(`<label for="fig-1-${c.id}">`);
      expect(html).not.toMatch(/NaN|undefined|Infinity/);
      // Nothing drawn below the viewBox, where it would be cut off.
      const svg = f.view(values).svg;
      for (const m of svg.matchAll(/<rect x="[^"]*" y="([\d.-]+)" width="[^"]*" height="([\d.-]+)"/g))
        expect(Number(m[1]) + Number(m[2]), `${f.name}: ${m[0]}`).toBeLessThanOrEqual(FIGURE_H);
      for (const m of svg.matchAll(/<text x="[^"]*" y="([\d.-]+)"/g))
        expect(Number(m[1]), `${f.name}: ${m[0]}`).toBeLessThanOrEqual(FIGURE_H);
    }
  });
});
