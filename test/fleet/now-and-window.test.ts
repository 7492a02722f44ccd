/**
 * Issue 28: the verdict now (every scrape of the last minutes) and the hours over the window (segment averages)
 * agree for a job that does not change. Pure: the segment is built from the same scrapes as Prometheus's
 * avg/min/max/quantile_over_time would build it, without a Prometheus.
 */
import { describe, expect, test } from 'vitest';
import { verdictsOf } from '../../server/fleet/audit.ts';
import { STEADY_COPIES, steadyUtil, steadyWindow } from '../../server/fleet/steady.ts';
import { spread } from '../../src/lib/diagnose/stats.ts';
import type { StreamMessage } from '../../src/protocol/metrics.ts';
import { windowOf } from '../fixtures/messages.ts';

const GiB = 1024 ** 3;

/** PromQL's quantile_over_time: linear between the two nearest ranks. */
function quantile(q: number, values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const rank = q * (s.length - 1);
  const lo = Math.floor(rank);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (rank - lo);
}

/** Five minutes of 15 s scrapes of one GPU holding memory, its loader's core pegged, GPU-Util as `util(i)`. */
function scrapes(util: (i: number) => number): StreamMessage[] {
  return windowOf([{ gpuUtilPct: util, memUsedBytes: 24 * GiB, memUtilPct: 3, powerWatts: 110 }], {
    n: 21,
    intervalS: 15,
  }).map((m) => ({
    ...m,
    host: {
      cpuPct: 9,
      perCorePct: [100, 4, 3, 5],
      load: { avg1: 1, avg5: 1, avg15: 1 },
      mem: { totalBytes: 64 * GiB, usedBytes: 8 * GiB, availableBytes: 56 * GiB },
    },
  }));
}

/** The same stretch as one averaged segment, judged as the window's hours judge it (`withP90`: its 90th percentile read). */
function segmentVerdict(raw: readonly StreamMessage[], withP90 = true) {
  const utils = raw.map((m) => m.gpus[0]!.gpuUtilPct!);
  const last = raw.at(-1)!;
  const avg = {
    ...last,
    gpus: [{ ...last.gpus[0]!, gpuUtilPct: utils.reduce((a, b) => a + b, 0) / utils.length }],
  };
  const s = { min: Math.min(...utils), p90: withP90 ? quantile(0.9, utils) : null, max: Math.max(...utils) };
  return verdictsOf(steadyWindow(avg, 300, undefined, new Map([[0, s]])), 300)[0]!;
}

describe('the verdict now and the hours over the window', () => {
  test('a steady data-starved job (0% between short bursts, 4% on average) is data-starved both ways', () => {
    const raw = scrapes((i) => (i % 10 === 0 ? 30 : 0));
    const now = verdictsOf(raw, 300)[0]!;
    expect(now.kind).toBe('data-starvation');
    expect(segmentVerdict(raw).kind).toBe(now.kind);
  });

  test('a steady idle job with memory held is idle but allocated both ways', () => {
    const raw = scrapes(() => 0).map((m) => ({ ...m, host: { ...m.host!, perCorePct: [3, 4, 3, 5] } }));
    expect(verdictsOf(raw, 300)[0]!.kind).toBe('idle-allocated');
    expect(segmentVerdict(raw).kind).toBe('idle-allocated');
  });

  test("a segment's copies keep its GPU-Util mean, 90th percentile and extremes as the engine reads them", () => {
    for (const [mean, s] of [
      [4, { min: 0, p90: 30, max: 40 }],
      [13.6, { min: 0, p90: 22, max: 22 }],
      [97, { min: 90, p90: 99, max: 100 }],
      [50, { min: 50, p90: 50, max: 50 }],
    ] as const) {
      const copies = steadyUtil(mean, s);
      expect(copies).toHaveLength(STEADY_COPIES);
      const read = spread(copies);
      expect(read.mean).toBeCloseTo(mean, 6);
      expect(read).toMatchObject({ min: s.min, p90: s.p90, max: s.max });
    }
  });

  test("a segment's copies without its 90th percentile keep its mean and extremes, the percentile within them", () => {
    for (const [mean, min, max] of [
      [50, 0, 100],
      [6, 5, 100], // the mean near the least reading: the top gives way
      [4, 0, 12],
      [97, 90, 100],
      [50, 50, 50],
    ] as const) {
      const read = spread(steadyUtil(mean, { min, p90: null, max }));
      expect(read.mean).toBeCloseTo(mean, 6);
      expect(read.min).toBe(min);
      expect(read.max).toBeLessThanOrEqual(max);
      expect(read.p90).toBeLessThanOrEqual(read.max);
      if (mean > min + (max - min) / 10) expect(read.max).toBe(max);
    }
  });

  test('where the rules path reads no 90th percentile, the segment gets the verdict it gets with one', () => {
    // needsP90's rule (rules-path.ts): the percentile is read where the mean is under 5% and the greatest reading
    // 15% or more. Every other segment here, judged without it, must get the verdict the percentile gives.
    const patterns: ((i: number) => number)[] = [];
    for (const base of [0, 1, 3, 4, 5, 6, 20, 60, 84, 86, 97])
      for (const burst of [0, 10, 14, 15, 30, 100])
        for (const every of [2, 5, 10, 21]) patterns.push((i) => (i % every === 0 ? Math.max(base, burst) : base));
    let judged = 0;
    for (const util of patterns) {
      const raw = scrapes(util);
      const utils = raw.map((m) => m.gpus[0]!.gpuUtilPct!);
      const mean = utils.reduce((a, b) => a + b, 0) / utils.length;
      if (mean < 5 && Math.max(...utils) >= 15) continue; // read there
      judged++;
      expect(segmentVerdict(raw, false).kind, `GPU-Util ${utils.join(' ')}`).toBe(segmentVerdict(raw).kind);
    }
    expect(judged).toBeGreaterThan(200);
  });

  test('equal copies of a segment are one object, and judging them so changes no verdict (a throttled GPU too)', () => {
    const raw = scrapes((i) => (i % 10 === 0 ? 30 : 0));
    const last = raw.at(-1)!;
    const seg = { ...last, gpus: [{ ...last.gpus[0]!, gpuUtilPct: 6 }] };
    const shares = new Map([[0, { SwPowerCap: 0.5, HwSlowdown: 0.25 }]]);
    const copies = steadyWindow(seg, 300, shares, new Map([[0, { min: 0, p90: 30, max: 30 }]]));
    const distinct = new Set(copies.map((m) => m.gpus[0]));
    // GPU-Util changes at copies 1 and 18 (0, 3.5 × 17, 30, 30); the reasons at copies 5 and 10 (25% and 50% of 20).
    expect(distinct.size).toBe(5);
    expect(copies.filter((m) => m.gpus[0]!.clockEventReasons?.includes('SwPowerCap'))).toHaveLength(10);
    expect(copies.filter((m) => m.gpus[0]!.clockEventReasons?.includes('HwSlowdown'))).toHaveLength(5);
    // Fresh objects for every copy (what the audit made before): the same verdict, word for word.
    const fresh = copies.map((m) => ({ ...m, gpus: m.gpus.map((g) => ({ ...g })) }));
    expect(verdictsOf(copies, 300)[0]).toEqual(verdictsOf(fresh, 300)[0]);
  });
});
