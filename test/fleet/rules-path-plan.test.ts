/**
 * How the window is split between the recording rules and raw series (server/fleet/rules/rules-path.ts), without
 * Prometheus: which segments the rules cover, the runs read each way, and that the runs still add up to the window.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { coveredSegments, needsP90, pathTaken, runsOf, subPlan } from '../../server/fleet/rules/rules-path.ts';
import { rulesDataSpanS } from '../../server/fleet/rules/coverage.ts';
import { segmentHours, segmentPlan } from '../../server/fleet/segments.ts';

describe('coveredSegments', () => {
  test('a segment is covered with all its minutes but one; fewer, or none, is raw', () => {
    // 24 h: segments of 51 min 25.7 s, so 51 whole minutes: 50 points are enough, 49 are not.
    const p = segmentPlan(86_400, 15);
    expect(coveredSegments([49, 50, 52, undefined], p.segmentMs, p.oldestMs)).toEqual([false, true, true, false]);
  });
});

describe('runs of segments', () => {
  test('rules that began late, or stopped and came back, give runs read each way, in order', () => {
    expect(runsOf([false, false, true, true])).toEqual([
      { from: 0, to: 1, rules: false },
      { from: 2, to: 3, rules: true },
    ]);
    expect(runsOf([true, false, true]).map((r) => r.rules)).toEqual([true, false, true]);
  });

  test('whatever the runs, their segments add up to the window and stand for the same hours', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3600, max: 30 * 86_400 }),
        fc.array(fc.boolean(), { minLength: 28, maxLength: 28 }),
        (windowS, flags) => {
          const endS = 1_800_000_000;
          const plan = segmentPlan(windowS, 15);
          const runs = runsOf(flags.slice(0, plan.count)).map((r) => ({
            ...subPlan(plan, endS, r.from, r.to),
            fromRules: r.rules,
          }));
          const ms = runs.reduce((a, r) => a + r.plan.oldestMs + (r.plan.count - 1) * r.plan.segmentMs, 0);
          expect(ms).toBe(windowS * 1000);
          expect(runs.at(-1)!.endS).toBe(endS);
          // Each run's segments are the plan's own, stamped at the same ends with the same hours.
          const hours = runs.flatMap((r) =>
            Array.from({ length: r.plan.count }, (_, i) => {
              const at = Math.round(r.endS * 1000) - (r.plan.count - 1 - i) * r.plan.segmentMs;
              return segmentHours(r.plan, r.endS, at);
            }),
          );
          const whole = Array.from({ length: plan.count }, (_, i) =>
            segmentHours(plan, endS, endS * 1000 - (plan.count - 1 - i) * plan.segmentMs),
          );
          expect(hours).toEqual(whole);
          const taken = pathTaken(runs);
          expect(taken.path).toBe(
            runs.every((r) => r.fromRules) ? 'recording-rules' : runs.some((r) => r.fromRules) ? 'mixed' : 'raw',
          );
        },
      ),
    );
  });
});

describe("GPU-Util's 90th percentile, read where it can change a verdict", () => {
  /** One GPU's segment means and greatest readings (GPU-Util %), as the rules path reads them. */
  const gpu = (instance: string, gpu: string, means: number[], maxes: number[]) =>
    [
      ['DCGM_FI_DEV_GPU_UTIL', means],
      ['util:max', maxes],
    ].map(([series, values]) => ({
      labels: { instance, gpu, UUID: `GPU-${instance}-${gpu}`, saturate_series: series as string },
      points: (values as number[]).map((v, i): [number, number] => [3085.714 * (i + 1), v]),
    }));

  test('only hosts with a segment under 5% on average that reached 15% are asked for it', () => {
    const segments = [
      ...gpu('starved:9400', '0', [60, 4], [100, 30]), // 4% on average with bursts to 30%: idle or waiting turns on it
      ...gpu('idle:9400', '0', [0.4, 0.2], [12, 3]), // never reached 15%: idle whatever it is
      ...gpu('busy:9400', '0', [97, 5], [100, 100]), // 5% is not under 5%
      ...gpu('busy:9400', '1', [88, 92], [100, 100]),
    ];
    expect(needsP90(segments)).toEqual(['starved:9400']);
    expect(needsP90(segments.filter((s) => !s.labels.instance.startsWith('starved')))).toEqual([]);
  });

  test("a GPU's greatest readings are matched by GPU and owner, not by position in the answer", () => {
    const [mean0, max0] = gpu('h:9400', '0', [2], [40]);
    const [mean1, max1] = gpu('h2:9400', '1', [2], [3]);
    expect(needsP90([mean1!, mean0!, max0!, max1!])).toEqual(['h:9400']);
    expect(needsP90([mean0!])).toEqual([]); // no greatest reading: nothing to say
    // One GPU, two owners in the window (a pod label that changed): each owner's series is looked at.
    const owned = (pod: string, means: number[], maxes: number[]) =>
      gpu('h3:9400', '0', means, maxes).map((s) => ({ ...s, labels: { ...s.labels, pod } }));
    expect(needsP90([...owned('train-a', [3], [40]), ...owned('train-b', [90], [100])])).toEqual(['h3:9400']);
    expect(needsP90([...owned('train-b', [90], [100]), ...owned('train-a', [3], [40])])).toEqual(['h3:9400']);
  });
});

describe('the data span from the rules', () => {
  const p = segmentPlan(86_400, 15);
  const newer = ((p.count - 1) * p.segmentMs) / 1000;
  test('rules over the whole day: the whole window; over part of the oldest segment: that part', () => {
    expect(rulesDataSpanS(p, [52, 51], [true, true], 60, 86_400)).toBe(86_400);
    expect(rulesDataSpanS(p, [50, 51], [true, true], 60, 86_400)).toBe(newer + 50 * 60);
    expect(rulesDataSpanS(p, [10, 51], [true, true], 300, 86_400)).toBe(newer + 10 * 300);
  });

  test('rules that do not cover the oldest segment say nothing: the raw series are asked', () => {
    expect(rulesDataSpanS(p, [20, 51], [false, true], 60, 86_400)).toBeNull();
    expect(rulesDataSpanS(p, [], [false], 60, 86_400)).toBeNull();
  });
});
