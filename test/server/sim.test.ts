import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { GpuSampleSchema, HostSampleSchema, ThroughputSchema } from '../../src/protocol/metrics.ts';
import {
  defaultKnobs,
  fixedKnobs,
  parseScenarioSpec,
  scenarioDevices,
  sampleAt,
  SCENARIO_IDS,
  SCENARIOS,
  type SimFrame,
} from '../../src/lib/sim/index.ts';
import { busyFraction } from '../../src/lib/sim/noise.ts';

/** Frames every 500 ms over `seconds`, starting at `fromMs`. */
function run(id: string, knobs: Record<string, number>, seconds = 30, fromMs = 0, seed = 'test'): SimFrame[] {
  return Array.from({ length: (seconds * 1000) / 500 }, (_, i) => sampleAt(id, fromMs + i * 500, seed, knobs));
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const gpu = (
  frames: SimFrame[],
  index: number,
  field: 'gpuUtilPct' | 'smActivePct' | 'powerWatts' | 'dramActivePct' | 'tensorActivePct' | 'smClockMhz',
): number[] => frames.map((f) => f.gpus[index]?.[field] ?? Number.NaN);

describe('scenario list', () => {
  test('has the eight scenarios, each with a one-line description, a fix and a knob', () => {
    expect(SCENARIO_IDS).toEqual([
      'idle',
      'data-starved',
      'small-kernels',
      'memory-bound',
      'compute-bound',
      'throttled',
      'nccl-hang',
      'straggler',
    ]);
    for (const s of SCENARIOS) {
      expect(s.description.length, s.id).toBeLessThan(140);
      expect(s.description).not.toContain('\n');
      expect(s.fix.length).toBeGreaterThan(10);
      expect(s.knobs.length).toBeGreaterThan(0);
      for (const k of s.knobs) {
        expect(k.default).toBeGreaterThanOrEqual(k.min);
        expect(k.fixed).toBeLessThanOrEqual(k.max);
      }
    }
  });

  test('parses sim specs with knobs and explains bad ones', () => {
    expect(parseScenarioSpec('data-starved?numWorkers=8')).toEqual({ id: 'data-starved', knobs: { numWorkers: 8 } });
    expect(() => parseScenarioSpec('nope')).toThrow(/Use one of: idle, data-starved/);
    expect(() => parseScenarioSpec('idle?numWorkers=2')).toThrow(/knobs: releaseMemory/);
    expect(() => parseScenarioSpec('data-starved?numWorkers=lots')).toThrow(/needs a number/);
  });

  test('a GPU count makes a machine of that many GPUs, and a bad one says what fits', () => {
    expect(parseScenarioSpec('data-starved?gpus=8&numWorkers=2')).toEqual({
      id: 'data-starved',
      knobs: { numWorkers: 2 },
      gpus: 8,
    });
    expect(() => parseScenarioSpec('idle?gpus=0')).toThrow(/gpus must be a whole number from 1 to 16, e\.g\. gpus=8/);
    expect(() => parseScenarioSpec('idle?gpus=17')).toThrow(/from 1 to 16/);
    expect(() => parseScenarioSpec('idle?gpus=2.5')).toThrow(/whole number/);
    expect(() => parseScenarioSpec('idle?gpus=')).toThrow(/whole number/);
    expect(() => parseScenarioSpec('straggler?gpus=6')).toThrow(/runs 4 ranks per job: gpus must be a multiple of 4/);
  });
});

describe('a simulated machine of 8 GPUs', () => {
  test('runs independent copies of the job: distinct GPUs, the same cause on each, devices matching samples', () => {
    for (const [id, ranks] of [
      ['data-starved', 1],
      ['nccl-hang', 4],
    ] as const) {
      const frame = sampleAt(id, 30_000, 'lab-8', {}, 8);
      const devices = scenarioDevices(id, 'lab-8', 8);
      expect(frame.gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(devices.map((d) => d.uuid)).toEqual(frame.gpus.map((g) => g.uuid));
      expect(new Set(devices.map((d) => d.uuid)).size).toBe(8);
      // The first copy is the machine of the scenario's own size, unchanged.
      expect(frame.gpus.slice(0, ranks)).toEqual(sampleAt(id, 30_000, 'lab-8').gpus);
    }
    // nccl-hang: rank 2 of each 4-rank copy is the stalled one (0% util); the others spin at 100%.
    const hang = sampleAt('nccl-hang', 30_000, 'lab-8', {}, 8).gpus.map((g) => g.gpuUtilPct);
    expect(hang).toEqual([100, 100, 0, 100, 100, 100, 0, 100]);
    // Copies differ in their noise, not in their cause.
    const starved = sampleAt('data-starved', 30_000, 'lab-8', {}, 8).gpus;
    expect(new Set(starved.map((g) => g.powerWatts)).size).toBeGreaterThan(1);
  });
});

describe('sampleAt', () => {
  test('is deterministic and every frame fits the protocol', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCENARIO_IDS),
        fc.integer({ min: 0, max: 2e12 }),
        fc.string({ maxLength: 12 }),
        fc.boolean(),
        (id, t, seed, fixed) => {
          const knobs = fixed ? fixedKnobs(id) : defaultKnobs(id);
          const a = sampleAt(id, t, seed, knobs);
          expect(sampleAt(id, t, seed, knobs)).toEqual(a);
          for (const g of a.gpus) {
            GpuSampleSchema.parse(g);
            expect(g.dramActivePct ?? 0).toBeLessThanOrEqual(80); // ~80% is the practical DRAM peak
            expect(g.powerWatts ?? 0).toBeLessThanOrEqual((g.powerLimitWatts ?? 700) + 5);
          }
          HostSampleSchema.parse(a.host);
          if (a.throughput) expect(ThroughputSchema.parse(a.throughput).simulated).toBe(true);
        },
      ),
      { numRuns: 300, seed: 4401 },
    );
  });

  test('different seeds give different noise but the same picture', () => {
    const a = sampleAt('compute-bound', 12_000, 'a');
    const b = sampleAt('compute-bound', 12_000, 'b');
    expect(a.gpus[0]?.uuid).not.toBe(b.gpus[0]?.uuid);
    expect(Math.abs((a.gpus[0]?.powerWatts ?? 0) - (b.gpus[0]?.powerWatts ?? 0))).toBeLessThan(60);
  });
});

describe('scenarios agree with the fact base', () => {
  test('data-starved: low, sawtooth GPU-Util with a pegged core; more workers fix it', () => {
    const starved = run('data-starved', {});
    const util = gpu(starved, 0, 'gpuUtilPct');
    expect(mean(util)).toBeLessThan(25);
    expect(Math.max(...util) - Math.min(...util)).toBeGreaterThanOrEqual(15); // sawtooth, not flat
    expect(starved.every((f) => f.host.perCorePct.some((p) => p >= 94))).toBe(true);
    const fixed = run('data-starved', fixedKnobs('data-starved'));
    expect(mean(gpu(fixed, 0, 'gpuUtilPct'))).toBeGreaterThan(90);
    expect(mean(fixed.map((f) => f.throughput?.samplesPerSec ?? 0))).toBeGreaterThan(
      5 * mean(starved.map((f) => f.throughput?.samplesPerSec ?? 0)),
    );
  });

  test('small-kernels: GPU-Util 95–100% with SM activity 20–30% and modest power', () => {
    const frames = run('small-kernels', {});
    for (const f of frames) {
      const g = f.gpus[0]!;
      expect(g.gpuUtilPct).toBeGreaterThanOrEqual(93);
      expect(g.smActivePct).toBeGreaterThanOrEqual(18);
      expect(g.smActivePct).toBeLessThanOrEqual(30);
      expect(g.powerWatts).toBeLessThan(260);
    }
    const big = run('small-kernels', fixedKnobs('small-kernels'));
    expect(mean(gpu(big, 0, 'smActivePct'))).toBeGreaterThan(80);
    expect(mean(gpu(big, 0, 'powerWatts'))).toBeGreaterThan(500);
  });

  test('memory-bound: DRAM near the ceiling, tensor idle; fusing flips them', () => {
    const frames = run('memory-bound', {});
    expect(mean(gpu(frames, 0, 'dramActivePct'))).toBeGreaterThan(70);
    expect(mean(gpu(frames, 0, 'tensorActivePct'))).toBeLessThan(10);
    const fused = run('memory-bound', fixedKnobs('memory-bound'));
    expect(mean(gpu(fused, 0, 'dramActivePct'))).toBeLessThan(55);
    expect(mean(gpu(fused, 0, 'tensorActivePct'))).toBeGreaterThan(30);
  });

  test('compute-bound: busy SMs and tensor pipes near the power limit; no AMP keeps GPU-Util but not tensor', () => {
    const frames = run('compute-bound', {});
    expect(mean(gpu(frames, 0, 'smActivePct'))).toBeGreaterThan(85);
    expect(mean(gpu(frames, 0, 'tensorActivePct'))).toBeGreaterThan(60);
    expect(mean(gpu(frames, 0, 'powerWatts'))).toBeGreaterThan(600);
    const fp32 = run('compute-bound', { amp: 0 });
    expect(mean(gpu(fp32, 0, 'gpuUtilPct'))).toBeGreaterThan(97);
    expect(mean(gpu(fp32, 0, 'tensorActivePct'))).toBeLessThan(2);
  });

  test('throttled: clock event reasons and low clocks; the fix clears the heat and the artificial cap, not SwPowerCap', () => {
    const frames = run('throttled', {});
    expect(
      frames.every((f) =>
        (f.gpus[0]?.clockEventReasons ?? []).some((r) => r === 'SwPowerCap' || r.includes('Thermal')),
      ),
    ).toBe(true);
    expect(mean(gpu(frames, 0, 'smClockMhz'))).toBeLessThan(1750);
    const fixed = run('throttled', fixedKnobs('throttled'));
    // A sustained bf16 GEMM at the default 700 W limit sits at the cap (power card): SwPowerCap stays, heat goes.
    expect(fixed.every((f) => f.gpus[0]?.clockEventReasons?.join() === 'SwPowerCap')).toBe(true);
    expect(mean(gpu(fixed, 0, 'powerWatts'))).toBeGreaterThan(690);
    // The power card's model: about 1,820 MHz at 700 W, 1,210 MHz at 400 W (src/lib/power-model.ts).
    expect(mean(gpu(fixed, 0, 'smClockMhz'))).toBeGreaterThan(1790);
    expect(mean(gpu(fixed, 0, 'smClockMhz'))).toBeLessThan(1850);
    const tokens = (fs: SimFrame[]) => mean(fs.map((f) => f.throughput?.tokensPerSec ?? 0));
    expect(tokens(fixed) / tokens(frames)).toBeGreaterThan(1.15);
  });

  test('nccl-hang: after 15 s, 100% GPU-Util at near-idle power and no throughput', () => {
    const before = run('nccl-hang', {}, 10);
    expect(mean(gpu(before, 0, 'powerWatts'))).toBeGreaterThan(500);
    const hung = run('nccl-hang', {}, 20, 20_000);
    for (const r of [0, 1, 3]) {
      expect(gpu(hung, r, 'gpuUtilPct').every((u) => u === 100)).toBe(true);
      expect(Math.max(...gpu(hung, r, 'powerWatts'))).toBeLessThan(130);
      expect(Math.max(...gpu(hung, r, 'smActivePct'))).toBeLessThan(5);
    }
    expect(gpu(hung, 2, 'gpuUtilPct').every((u) => u === 0)).toBe(true);
    expect(hung.every((f) => f.throughput?.tokensPerSec === 0)).toBe(true);
    expect(mean(gpu(run('nccl-hang', fixedKnobs('nccl-hang'), 20, 20_000), 0, 'powerWatts'))).toBeGreaterThan(500);
  });

  test('straggler: all GPUs read ~100% but the waiting ranks draw less power; balancing evens them', () => {
    const frames = run('straggler', {});
    expect(frames[0]?.gpus).toHaveLength(4);
    for (const r of [0, 1, 2, 3]) expect(mean(gpu(frames, r, 'gpuUtilPct'))).toBeGreaterThan(97);
    expect(mean(gpu(frames, 2, 'powerWatts')) - mean(gpu(frames, 0, 'powerWatts'))).toBeGreaterThan(100);
    const balanced = run('straggler', fixedKnobs('straggler'));
    expect(Math.abs(mean(gpu(balanced, 2, 'powerWatts')) - mean(gpu(balanced, 0, 'powerWatts')))).toBeLessThan(30);
    expect(mean(balanced.map((f) => f.throughput?.tokensPerSec ?? 0))).toBeGreaterThan(
      1.25 * mean(frames.map((f) => f.throughput?.tokensPerSec ?? 0)),
    );
  });

  test('idle: 0% with memory held; releasing frees it', () => {
    const held = sampleAt('idle', 5000, 's');
    expect(held.gpus[0]).toMatchObject({ gpuUtilPct: 0, clockEventReasons: ['GpuIdle'] });
    expect(held.gpus[0]?.memUsedBytes).toBeGreaterThan(30 * 1024 ** 3);
    expect(sampleAt('idle', 5000, 's', fixedKnobs('idle')).gpus[0]?.memUsedBytes).toBeLessThan(1024 ** 3);
  });
});

describe('busyFraction', () => {
  test('matches the duty cycle over whole periods and stays within [0, 1]', () => {
    expect(busyFraction(10_000, 1000, 250, 4000)).toBeCloseTo(0.25);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        (t, p, b, w) => {
          const f = busyFraction(t, p, b, w);
          expect(f).toBeGreaterThanOrEqual(0);
          expect(f).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
