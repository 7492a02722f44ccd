import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { StreamMessage } from '../../src/protocol/metrics.ts';
import { diagnose, type Diagnosis } from '../../src/lib/diagnose/index.ts';
import { FLEET, caseMessages, fleetMessages, loadRealCases } from '../fixtures/real/convert.ts';
import { SIM_CASES, fleetTrace, trace } from '../fixtures/sim-traces.ts';
import { procs, windowOf } from '../fixtures/messages.ts';

const CARDS = new URL('../../content/cards/', import.meta.url);
const cardText = new Map<string, string>();
for (const topic of readdirSync(CARDS))
  for (const f of readdirSync(new URL(`${topic}/`, CARDS)))
    if (f.endsWith('.md')) cardText.set(f.slice(0, -3), readFileSync(new URL(`${topic}/${f}`, CARDS), 'utf8'));

/** mulberry32, so the generated windows are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 400 windows drawn over the readings the rules branch on, present or missing. */
function generated(): StreamMessage[][] {
  const r = rng(19);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  return Array.from({ length: 400 }, () => {
    const gpu = {
      gpuUtilPct: pick([0, 2, 40, 70, 97, 100]),
      powerWatts: pick([null, 90, 300, 690]),
      powerLimitWatts: 700,
      smClockMhz: pick([null, 1100, 1950]),
      smClockMaxMhz: 1980,
      temperatureC: pick([null, 55, 88]),
      smActivePct: pick([null, 1, 20, 60, 90]),
      tensorActivePct: pick([null, 0, 3, 60]),
      dramActivePct: pick([null, 0.5, 30, 75]),
      memUtilPct: pick([null, 0, 40]),
      memUsedBytes: pick([null, 0.2 * 1024 ** 3, 40 * 1024 ** 3]),
      processes: pick([null, [], procs(1)]),
      clockEventReasons: pick([null, [], ['GpuIdle'], ['SwPowerCap'], ['HwPowerBrakeSlowdown'], ['SwThermalSlowdown']]),
    };
    const throughput = pick([
      undefined,
      { samplesPerSec: 0, stepsPerSec: 0 },
      { samplesPerSec: 500 },
      { samplesPerSec: 500, dataWaitFraction: 0.6 },
      { samplesPerSec: 500, dataWaitFraction: 0.02 },
    ]);
    const n = pick([1, 1, 2, 4]);
    return windowOf(
      Array.from({ length: n }, () => gpu),
      throughput ? { throughput } : {},
    );
  });
}

const windows: StreamMessage[][] = [
  ...generated(),
  ...SIM_CASES.flatMap((c) => [trace(c, null), trace(c, 7), trace(c, null, { noGpm: true })]),
];
const verdicts: { w: StreamMessage[]; d: Diagnosis }[] = [
  ...windows.map((w) => ({ w, d: diagnose(w) })),
  ...SIM_CASES.map((c) => ({ w: fleetTrace(c), d: diagnose(fleetTrace(c), FLEET.windowS) })),
  ...loadRealCases().flatMap((c) => [
    { w: caseMessages(c), d: diagnose(caseMessages(c)) },
    { w: fleetMessages(c), d: diagnose(fleetMessages(c), FLEET.windowS) },
  ]),
];

/** Each rule quotes the card it comes from; the quote must still be in the card, or the rule is stale. */
const quoted = (cardId: string, quote: string): void => {
  expect(cardText.get(cardId), `card ${cardId}`).toContain(quote);
};
const utilOf = (w: StreamMessage[]): number[] => w.flatMap((m) => m.gpus.map((g) => g.gpuUtilPct ?? -1));
const progressing = (w: StreamMessage[]): boolean =>
  w.some((m) => [m.throughput?.samplesPerSec, m.throughput?.tokensPerSec].some((x) => (x ?? 0) > 0));

describe("each verdict's card link and next step agree with the card's text", () => {
  test('every card a verdict links to exists', () => {
    for (const { d } of verdicts) expect(cardText.has(d.cardId), d.cardId).toBe(true);
  });

  test('clocks card: no clock locking as a fix, the power cap under load is expected, gpu_idle is no fault', () => {
    quoted('clocks-and-clock-event-reasons', 'Locking clocks is a benchmarking tool, not a fix for idle.');
    quoted('clocks-and-clock-event-reasons', 'Do not panic over `sw_power_cap` under heavy load');
    quoted('clocks-and-clock-event-reasons', 'Do not treat `gpu_idle` or low idle clocks as faults.');
    for (const { w, d } of verdicts) {
      expect(d.next).not.toMatch(/\block (the )?(gpu )?clocks\b|-lgc\b/i);
      if (d.kind !== 'throttled') continue;
      expect(d.next).not.toMatch(/raise the (power )?limit|increase the power limit/i);
      const onlyIdle = w.every((m) => m.gpus.every((g) => (g.clockEventReasons ?? []).every((x) => x === 'GpuIdle')));
      const reasonsKnown = w.some((m) => m.gpus.some((g) => g.clockEventReasons !== null));
      expect(onlyIdle && reasonsKnown, `throttled on GpuIdle alone: ${d.evidence.join('; ')}`).toBe(false);
    }
  });

  test('hang card: a hang names a reading of no progress, and never fires while steps advance', () => {
    quoted('nccl-hangs-read-100', 'The question is never "is the GPU busy?" but "is the job making progress?"');
    quoted('nccl-hangs-read-100', 'if steps still advance, look for stragglers and exposed communication, not hangs');
    for (const { w, d } of verdicts.filter((x) => x.d.kind === 'communication-hang')) {
      expect(d.evidence.join(' ')).toMatch(
        /throughput 0|SM activity \d|DRAM \d|busy \d+% of the time|0% with its process/,
      );
      expect(progressing(w)).toBe(false);
    }
  });

  test('data-loader card: a steady 95% is not starvation, and at high GPU-Util more workers are not advised', () => {
    quoted('data-loader-bottleneck', 'A steady 95% is **not** this problem.');
    quoted('gpu-util', 'More data-loader workers would not help here');
    for (const { w, d } of verdicts) {
      const steadyHigh = utilOf(w).every((u) => u >= 85);
      if (!steadyHigh) continue;
      expect(d.kind).not.toBe('data-starvation');
      expect(d.next).not.toMatch(/num_workers/);
    }
  });

  test('small-kernels card: never at SM activity ≥ 80%, never gradient accumulation', () => {
    quoted('small-batches-small-kernels', '**SM activity is already 0.8 or more.**');
    quoted('small-batches-small-kernels', '**Gradient accumulation is not a utilization fix.**');
    for (const { w, d } of verdicts) {
      expect(d.next).not.toMatch(/gradient accumulation/i);
      if (d.kind !== 'small-kernels') continue;
      const sm = w.flatMap((m) => m.gpus.map((g) => g.smActivePct)).filter((x): x is number => x !== null);
      if (sm.length) expect(sm.reduce((a, b) => a + b, 0) / sm.length).toBeLessThan(80);
    }
  });

  test('memory-bound card: the fix is not more FLOPs (no tensor-core advice for a memory-bound verdict)', () => {
    quoted('memory-bound-vs-compute-bound', 'The fix there is not more FLOPs.');
    for (const { d } of verdicts.filter((x) => x.d.kind === 'memory-bound'))
      expect(d.next).not.toMatch(/tensor cores|autocast|TF32|float32_matmul_precision/i);
  });

  test('gpu-util card: "healthy" is never read from GPU-Util alone', () => {
    quoted('gpu-util', 'Never as proof that a job is efficient.');
    for (const { d } of verdicts.filter((x) => x.d.kind === 'compute-bound'))
      expect(d.evidence.join(' ')).toMatch(/SM activity \d|tensor activity \d|FP32 pipe/);
  });
});
