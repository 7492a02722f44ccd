import { describe, expect, test } from 'vitest';
import { boardPowerWatts, MAX_OPERATING_C, powerClocks, SLOWDOWN_C } from '../../src/lib/figures/power-clocks.ts';
import { sharing } from '../../src/lib/figures/sharing.ts';
import { FIGURES } from '../../src/lib/figures/registry.ts';
import { GPU_SPECS } from '../../src/lib/gpu-specs.ts';
import { cardFigure, cardFigures } from './card-figure.ts';

const POWER_CARD = 'content/cards/meters/power-draw-and-limits.md';
const CLOCKS_CARD = 'content/cards/meters/clocks-and-clock-event-reasons.md';

describe('power and clocks (content/cards/meters/power-draw-and-limits.md)', () => {
  test('the card’s two nodes: 700 W runs at 1,750–1,980 MHz, a 400 W cap at 1,200–1,400 MHz, about a third slower', () => {
    const a = powerClocks('h100-sxm', 700, 62, 1.05);
    const b = powerClocks('h100-sxm', 400, 55, 1.05);
    expect(a.clockMHz).toBeGreaterThanOrEqual(1750);
    expect(a.clockMHz).toBeLessThanOrEqual(1980);
    expect(a.powerWatts).toBeLessThanOrEqual(700 + 1e-6);
    expect(b.clockMHz).toBeGreaterThanOrEqual(1200);
    expect(b.clockMHz).toBeLessThanOrEqual(1400);
    expect(b.powerWatts).toBeCloseTo(400, 3);
    expect(b.reasons).toEqual(['sw_power_cap']);
    const slower = 1 - b.peakShare / a.peakShare;
    expect(slower).toBeGreaterThan(0.28); // node B: 35% slower per step
    expect(slower).toBeLessThan(0.4);
    const { view } = cardFigure(POWER_CARD);
    expect(view.readout).toBe(
      'At a 400 W limit and 55 °C, the H100 SXM runs at 1,285 MHz (sw_power_cap) and draws 400 W: compute-bound work runs at 70% of the dense peak, which is defined at 1,830 MHz.',
    );
  });
  test('clock basis: throughput is the clock over the 1,830 MHz the H100 peak is defined at, not over 1,980 MHz', () => {
    const capped = powerClocks('h100-sxm', 400, 55, 1.05);
    expect(capped.peakShare).toBeCloseTo(capped.clockMHz / 1830, 9);
    expect(capped.clockShare).toBeCloseTo(capped.clockMHz / 1980, 9);
    // Work light enough to run at the 1,980 MHz maximum runs 8% above the datasheet peak's clock.
    expect(powerClocks('h100-sxm', 700, 60, 0.6).peakShare).toBeCloseTo(1980 / 1830, 9);
    // A100's peak is defined at its 1,410 MHz boost, which is also its max: full clock is 100% of the peak.
    expect(powerClocks('a100-sxm-80gb', 400, 60, 0.6).peakShare).toBe(1);
  });
  test('power rises faster than clock near the top: the last 10% of clock costs more than 10% of power', () => {
    const h100 = GPU_SPECS['h100-sxm'];
    const top = boardPowerWatts(h100, 1.05, 1) - boardPowerWatts(h100, 1.05, 0.9);
    const bottom = boardPowerWatts(h100, 1.05, 0.4) - boardPowerWatts(h100, 1.05, 0.3);
    expect(top).toBeGreaterThan(bottom * 1.5);
    expect(top / boardPowerWatts(h100, 1.05, 1)).toBeGreaterThan(0.1);
  });
  test('work that asks for less than the limit runs at full clock with no reason active', () => {
    const r = powerClocks('a100-sxm-80gb', 400, 60, 0.6);
    expect(r.clockMHz).toBe(1410);
    expect(r.reasons).toEqual([]);
    expect(
      FIGURES['power-clocks']!.view({ gpu: 'a100-sxm-80gb', powerLimitWatts: 400, temperatureC: 60, demandPct: 60 })
        .readout,
    ).toContain('runs at its full 1,410 MHz');
  });
  test('a limit above the GPU’s TDP is held at the TDP, and the readout says so', () => {
    const view = FIGURES['power-clocks']!.view({
      gpu: 'a100-sxm-40gb',
      powerLimitWatts: 700,
      temperatureC: 60,
      demandPct: 105,
    });
    expect(view.readout).toMatch(/^The figure holds the limit at the A100 SXM 40GB’s 400 W TDP\. At a 400 W limit/);
  });
  test('heat: software trims the clock above the max operating temperature; hardware at least halves it', () => {
    const cool = powerClocks('h100-sxm', 700, 60, 1.05);
    const warm = powerClocks('h100-sxm', 700, MAX_OPERATING_C + 2, 1.05);
    expect(warm.reasons).toEqual(['sw_thermal_slowdown']);
    expect(warm.clockMHz).toBeLessThan(cool.clockMHz);
    const hot = powerClocks('h100-sxm', 700, SLOWDOWN_C + 1, 1.05);
    expect(hot.reasons).toEqual(['hw_thermal_slowdown']);
    expect(hot.clockMHz).toBeCloseTo(cool.clockMHz / 2, 6);
    expect(hot.powerWatts).toBeLessThan(cool.powerWatts / 2);
  });
});

describe('power and clocks beside a straggler (content/cards/meters/clocks-and-clock-event-reasons.md)', () => {
  test('the card’s GPU 5 at 91 °C: hw_thermal_slowdown, at most half the clock of the cool GPUs (which run 1,755–1,980 MHz)', () => {
    const [clocks, straggler] = cardFigures(CLOCKS_CARD);
    expect(clocks!.figure.name).toBe('power-clocks');
    expect(clocks!.view.readout).toContain('(hw_thermal_slowdown)');
    const cool = powerClocks('h100-sxm', 700, 60, 1.05).clockMHz;
    expect(cool).toBeGreaterThanOrEqual(1755);
    expect(powerClocks('h100-sxm', 700, 91, 1.05).clockMHz).toBeLessThanOrEqual(cool / 2);
    // 410 ms steps become 690 ms: the seven others wait 280 ms in the all-reduce every step.
    expect(straggler!.figure.name).toBe('straggler');
    expect(straggler!.view.readout).toMatch(/280 ms/);
  });
});

describe('sharing a GPU (content/cards/serving/mig.md, content/cards/serving/mps.md)', () => {
  test('time-slicing: GPU-Util 100% whenever any tenant runs, SM activity the tenants’ average, 1/n of the time each', () => {
    const r = sharing('time-slicing', 4, 0.22);
    expect(r.gpuUtil).toBe(1);
    expect(r.smActivity).toBe(0.22);
    expect(r.tenantRate).toBe(0.25);
    expect(sharing('time-slicing', 1, 0.22).smActivity).toBe(0.22);
  });
  test('MPS: kernels run at once, so SM activity adds up to the 100% the SMs allow', () => {
    expect(sharing('mps', 4, 0.22).smActivity).toBeCloseTo(0.88, 9);
    expect(sharing('mps', 4, 0.22).tenantRate).toBe(1);
    const full = sharing('mps', 4, 0.5);
    expect(full.smActivity).toBe(1);
    expect(full.tenantRate).toBe(0.5);
  });
  test('MIG: own meters per instance, no nvidia-smi GPU-Util, the GPU level weighted by SMs', () => {
    const r = sharing('mig', 2, 0.986);
    expect(r.gpuUtil).toBeNull();
    expect(r.smActivity).toBeCloseTo(0.845, 3);
  });
  test('the MPS card’s four workers at 22%: up to 88% under MPS; 22% at 100% GPU-Util when they take turns', () => {
    const { figure, values, view } = cardFigure('content/cards/serving/mps.md');
    expect(view.readout).toContain('SM activity reads 88% at 100% GPU-Util');
    const before = figure.view({ ...values, mode: 'time-slicing' }).readout;
    expect(before).toContain('GPU-Util reads 100% and SM activity 22%');
  });
  test('no busy tenant reads 0% in every mode', () => {
    for (const mode of ['time-slicing', 'mps', 'mig'] as const)
      expect(FIGURES['sharing']!.view({ mode, tenants: 0, fillPct: 50 }).readout).toBe(
        'No tenant is busy: every meter reads 0%.',
      );
  });
});
