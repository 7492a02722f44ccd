/**
 * Long windows read in pieces of time (server/fleet/segments.ts): VictoriaMetrics evaluates a subquery over the whole
 * range of a range query and refuses more than 30,000 points per series by default, which a 7-day window's
 * clock-reason subqueries at the scrape step exceed (test/fleet/week.test.ts on VictoriaMetrics).
 */
import { describe, expect, test } from 'vitest';
import { joinPieces, segmentPlan, subqueryPieces, subqueryStepMs } from '../../server/fleet/segments.ts';

const VM_MAX_POINTS = 30_000; // VictoriaMetrics' -search.maxPointsPerTimeseries default
const END_MS = 1_800_000_000_000;

/** Every segment end of a window, and the pieces the audit reads it in. */
function cut(windowS: number, scrapeS: number) {
  const plan = segmentPlan(windowS, scrapeS);
  const firstMs = END_MS - (plan.count - 1) * plan.segmentMs;
  const ends = Array.from({ length: plan.count }, (_, i) => firstMs + i * plan.segmentMs);
  const stepMs = subqueryStepMs(plan.segmentMs, scrapeS * 1000);
  return { plan, ends, stepMs, pieces: subqueryPieces(firstMs, END_MS, plan.segmentMs, stepMs) };
}

describe('subqueryPieces', () => {
  test('a 7-day window at a 15 s scrape is read in two pieces, each under VictoriaMetrics’ 30,000 points', () => {
    const { plan, pieces } = cut(7 * 86_400, 15);
    expect(pieces).toHaveLength(2);
    for (const [from, to] of pieces) expect((to - from + plan.segmentMs) / 15_000).toBeLessThan(VM_MAX_POINTS);
  });

  test('1 h and 24 h windows stay one query, as before, with the reasons read at every scrape', () => {
    for (const windowS of [3600, 86_400]) {
      expect(cut(windowS, 15).pieces).toHaveLength(1);
      expect(cut(windowS, 15).stepMs).toBe(15_000);
    }
  });

  test('a 1 s scrape over 30 days samples the reasons every 7 s: one segment of 25.7 h fits under the cap', () => {
    // 30 d / 28 = 92,571 s a segment; at 1 s that is 92,571 points; 2 × 92,571,428 ms / 28,000 = 6,613 ms.
    expect(cut(30 * 86_400, 1).stepMs).toBe(6613);
  });

  test('for every window from 1 min to 90 d and scrape from 1 s to 60 s: each segment end read once, in order', () => {
    for (const windowS of [60, 3600, 86_400, 3 * 86_400, 7 * 86_400, 30 * 86_400, 90 * 86_400])
      for (const scrapeS of [1, 5, 15, 30, 60]) {
        const { plan, ends, pieces, stepMs } = cut(windowS, scrapeS);
        const read = pieces.flatMap(([from, to]) => ends.filter((t) => t >= from && t <= to));
        expect(read, `${windowS} s at ${scrapeS} s`).toEqual(ends);
        for (const [from, to] of pieces)
          expect((to - from + plan.segmentMs) / stepMs, `${windowS} s at ${scrapeS} s`).toBeLessThan(VM_MAX_POINTS);
      }
  });
});

describe('joinPieces', () => {
  test('one series per label set, its points in time order, whatever order the labels came in', () => {
    const joined = joinPieces([
      [
        { labels: { a: '1', b: '2' }, points: [[1, 10]] },
        { labels: { a: '9' }, points: [[1, 90]] },
      ],
      [{ labels: { b: '2', a: '1' }, points: [[2, 20]] }],
    ]);
    expect(joined).toEqual([
      {
        labels: { a: '1', b: '2' },
        points: [
          [1, 10],
          [2, 20],
        ],
      },
      { labels: { a: '9' }, points: [[1, 90]] },
    ]);
  });
});
