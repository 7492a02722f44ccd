/**
 * Each explorable figure's caption (its readout: the sentence saying what the figure shows) at every setting of its
 * controls: its numbers are the figure's own model's, and it never sets two equal numbers against each other.
 * Swept over each control's whole range, pairs of controls, and a seeded sample (test/unit/figure-settings.ts).
 */
import { describe, expect, test } from 'vitest';
import { FIGURES } from '../../src/lib/figures/registry.ts';
import type { Values } from '../../src/lib/figures/types.ts';
import { fmt, pct } from '../../src/lib/figures/format.ts';
import { GPU_SPECS, isGpuId, type Dtype } from '../../src/lib/gpu-specs.ts';
import { kernelTimeline } from '../../src/lib/figures/kernel-timeline.ts';
import { roofline } from '../../src/lib/figures/roofline.ts';
import { loaderLongRun } from '../../src/lib/figures/data-loader.ts';
import { idleCost } from '../../src/lib/figures/cost-of-idle.ts';
import { mfu } from '../../src/lib/figures/mfu.ts';
import { launchBound } from '../../src/lib/figures/launch-overhead.ts';
import { decodeStep } from '../../src/lib/figures/decode-batching.ts';
import { powerClocks } from '../../src/lib/figures/power-clocks.ts';
import { busyShare, pointReads } from '../../src/lib/figures/sampling.ts';
import { energyPerToken } from '../../src/lib/figures/energy.ts';
import { stragglerStep } from '../../src/lib/figures/straggler.ts';
import { sharing, type SharingMode } from '../../src/lib/figures/sharing.ts';
import { falseContrasts, sweep } from './figure-settings.ts';

const n = (v: Values, id: string) => Number(v[id]);
/** The number a pattern's first group captures, as shown. */
const shown = (readout: string, re: RegExp) => readout.match(re)?.[1];

/** For each figure: what its caption must say at `v`, checked against the model. */
const CLAIMS: Record<string, (v: Values, readout: string) => void> = {
  'kernel-timeline'(v, readout) {
    const r = kernelTimeline(n(v, 'kernelUs'), n(v, 'gapUs'), n(v, 'smsUsed'));
    expect(shown(readout, /GPU-Util (?:reads|and SM activity both read) (\d+%)/)).toBe(pct(r.gpuUtil));
    expect(shown(readout, /SM activity (?:is|both read) (\d+%)/)).toBe(pct(r.smActivity));
    expect(readout.includes(' but ')).toBe(pct(r.gpuUtil) !== pct(r.smActivity));
    expect(readout).toContain(`busy ${pct(r.gpuUtil)} of the time`);
  },
  roofline(v, readout) {
    const r = roofline(String(v['gpu']), String(v['dtype']) as Dtype, n(v, 'intensity'));
    if (!r) return void expect(readout).toMatch(/has no .* peak/);
    expect(readout).toContain(`${fmt(r.peakTflops)} TFLOP/s`);
    expect(readout).toContain(`ridge at ${fmt(r.ridge)} FLOP/byte`);
    expect(readout.includes('compute-bound')).toBe(!r.memoryBound);
    if (fmt(r.attainableTflops) !== fmt(r.peakTflops)) {
      expect(readout).toContain(`at most ${fmt(r.attainableTflops)} of the ${fmt(r.peakTflops)} TFLOP/s`);
      expect(readout).toContain('memory-bound');
    } else expect(readout).not.toContain('at most');
  },
  'data-loader'(v, readout) {
    const args = [n(v, 'workers'), n(v, 'cpuMs'), n(v, 'gpuMs')] as const;
    const r = loaderLongRun(...args, n(v, 'prefetch'), n(v, 'batchSize'));
    expect(readout).toContain(`every ${fmt(r.stepMs)} ms`);
    expect(readout).toContain(`GPU-Util about ${pct(r.gpuUtil)}, ${fmt(r.samplesPerSec)} samples/s`);
    expect(readout.includes('the GPU is the limit')).toBe(r.gpuUtil > 0.995);
    if (readout.includes('more prefetch would help'))
      expect(loaderLongRun(...args, n(v, 'prefetch') + 1, 1).gpuUtil).toBeGreaterThan(r.gpuUtil);
  },
  'cost-of-idle'(v, readout) {
    const gpus = n(v, 'gpus');
    const r = idleCost(gpus, n(v, 'price'), n(v, 'idlePct') / 100);
    expect(readout).toMatch(new RegExp(`^${fmt(gpus)} GPU${gpus === 1 ? ' ' : 's '}`));
    if (r.idleGpuHours > 0) expect(readout).toContain(` ${fmt(r.idleGpuHours)} GPU-hours: `);
    else expect(readout).toMatch(/wastes? nothing/);
    expect(readout).toMatch(gpus === 1 ? /\bwastes\b/ : /\bwaste\b/);
  },
  mfu(v, readout) {
    const r = mfu(n(v, 'paramsB'), n(v, 'tokensPerSec'), n(v, 'gpus'), String(v['gpu']), String(v['dtype']) as Dtype);
    if (!r) return void expect(readout).toMatch(/has no .* peak/);
    expect(readout).toMatch(new RegExp(`^MFU is ${pct(r.mfu)}`));
    expect(readout.includes('above 100%')).toBe(Math.round(r.mfu * 100) > 100);
  },
  'launch-overhead'(v, readout) {
    const graphs = v['graphs'] === 'on';
    const r = launchBound(n(v, 'kernelUs'), n(v, 'launchUs'), n(v, 'kernels'), graphs);
    expect(readout).toContain(`a step takes ${fmt(r.stepUs / 1000)} ms for ${fmt(r.gpuUs / 1000)} ms of GPU work`);
    expect(readout).toContain(`GPU-Util at most ${pct(r.gpuUtil)}`);
    if (!graphs) {
      expect(readout.includes('the CPU launching kernels sets the pace')).toBe(r.cpuUs > r.gpuUs);
      expect(readout.includes('the GPU sets the pace')).toBe(r.cpuUs < r.gpuUs);
    }
  },
  'decode-batching'(v, readout) {
    const batch = n(v, 'batch');
    const r = decodeStep(
      n(v, 'paramsB'),
      n(v, 'weights'),
      batch,
      n(v, 'context'),
      n(v, 'kvKB') * 1024,
      String(v['gpu']),
    );
    expect(readout).toContain(`at least ${fmt(r.stepMs)} ms`);
    expect(readout.includes('memory-bound')).toBe(r.memMs >= r.computeMs);
    expect(readout).toContain(`${fmt(r.tokensPerSec)} tokens/s`);
    expect(readout.includes('per sequence')).toBe(batch > 1);
  },
  'kv-cache'(v, readout) {
    const gpuId = String(v['gpu']);
    const gpu = isGpuId(gpuId) ? GPU_SPECS[gpuId] : GPU_SPECS.h200;
    expect(readout).toContain(gpu.label);
    const fit = shown(readout, /(?:room for|at most) ([\d,]+)/);
    if (readout.includes('does not fit')) expect(Number(fit?.replace(/,/g, '') ?? 0)).toBeLessThan(n(v, 'batch'));
    else expect(Number(fit?.replace(/,/g, ''))).toBeGreaterThanOrEqual(n(v, 'batch'));
    expect(readout).not.toMatch(/at most 0 /);
  },
  sampling(v, readout) {
    const periodS = n(v, 'periodS');
    const stallS = Math.min(n(v, 'stallS'), periodS);
    if (stallS === 0 || stallS === periodS) return void expect(readout).toMatch(/every tool reads (100|0)%/);
    const reads = pointReads(n(v, 'pollS'), 180, stallS, periodS);
    const missed = reads.filter((r) => r < 0.5).length;
    expect(readout).toContain(`in ${fmt(missed)} of ${fmt(reads.length)} reads`);
    expect(readout).toContain(`reads a steady ${pct(busyShare(0, n(v, 'avgS'), stallS, periodS))}`);
  },
  energy(v, readout) {
    const r = energyPerToken(n(v, 'powerWatts'), n(v, 'tokensPerSec'));
    expect(readout).toContain(`${fmt(r.joulesPerToken)} J per token: ${fmt(r.kWhPerMillionTokens)} kWh`);
  },
  straggler(v, readout) {
    const r = stragglerStep(n(v, 'computeMs'), n(v, 'slowMs'), n(v, 'transferMs'));
    expect(readout).toContain(`${fmt(r.stepMs)} ms`);
    if (r.waitMs > 0)
      expect(readout).toContain(`${fmt(r.waitMs)} ms of every ${fmt(r.stepMs)} ms step (${pct(r.waitShare)})`);
    expect(readout).not.toMatch(/\b1 ranks\b|\ball 2\b/);
    if (n(v, 'slowMs') > n(v, 'computeMs')) expect(readout).toContain('for the slow rank');
    else expect(readout).not.toContain('slow rank');
  },
  sharing(v, readout) {
    const tenants = n(v, 'tenants');
    const r = sharing(v['mode'] as SharingMode, tenants, n(v, 'fillPct') / 100);
    if (tenants > 0) expect(readout).toContain(`${fmt(r.smActivity * 100)}%`);
    if (tenants === 1) expect(readout).not.toMatch(/take turns|1\/1|\beach\b/);
    expect(readout).not.toMatch(/\b1 busy \S+ instance at [\d.]+% hold\b/);
  },
  'power-clocks'(v, readout) {
    const r = powerClocks(String(v['gpu']), n(v, 'powerLimitWatts'), n(v, 'temperatureC'), n(v, 'demandPct') / 100);
    expect(readout).toContain(`At a ${fmt(r.limitWatts)} W limit`);
    expect(readout).toContain(`${pct(r.peakShare)} of the dense peak`);
    if (r.reasons.length) expect(readout).toContain(`(${r.reasons.join(', ')})`);
    expect(readout).not.toMatch(/draws (\d[\d,]*) W, under its \1 W limit/);
  },
};

describe('figure captions follow the controls', () => {
  for (const figure of Object.values(FIGURES)) {
    test(`${figure.name}: the caption states the model’s numbers, and no contrast between equal ones, at every setting`, () => {
      for (const v of sweep(figure)) {
        const { readout } = figure.view(v);
        const at = `${figure.name} at ${JSON.stringify(v)}: ${readout}`;
        expect(falseContrasts(readout), at).toEqual([]);
        expect(readout, at).not.toMatch(/NaN|undefined|Infinity|–/);
        try {
          CLAIMS[figure.name]?.(v, readout);
        } catch (e) {
          throw new Error(`${at}\n${(e as Error).message}`);
        }
      }
    });
  }
});

describe('falseContrasts', () => {
  test('finds the user’s "GPU-Util reads 49% but SM activity is 49%", not a real contrast', () => {
    expect(falseContrasts('GPU-Util reads 49% but SM activity is 49%: …')).toHaveLength(1);
    expect(falseContrasts('GPU-Util reads 95% but SM activity is 30%: …')).toEqual([]);
    expect(falseContrasts('draws 700 W, under its 700 W limit')).toHaveLength(1);
  });
});
