/** The live view's step from the scrapes it reads (server/fleet/scrape-step.ts). */
import { expect, test } from 'vitest';
import { scrapeCountExpr, stepForScrapes } from '../../server/fleet/scrape-step.ts';

/** The samples a closed range of `rangeS` holds of scrapes every `intervalS`, the first `offsetS` into it. */
const samplesIn = (rangeS: number, intervalS: number, offsetS: number) =>
  Math.floor((rangeS - offsetS) / intervalS) + 1;

test('scrapes every 30 s over 5 minutes: read at 25 s, 12 points for 10 scrapes (20 at 15 s)', () => {
  expect(stepForScrapes(300, 10, 15)).toBe(25);
  expect(stepForScrapes(300, 11, 15)).toBe(25); // a closed range holding a scrape at each end
  expect(stepForScrapes(300, 9, 15)).toBe(30); // a range that holds one fewer: still the interval, not over it
  expect(stepForScrapes(300, 5, 15)).toBe(50); // Prometheus' default 1-minute scrapes
});

test('never over the scrape interval, wherever the range falls among the scrapes: none is skipped', () => {
  for (const intervalS of [15, 20, 25, 30, 40, 45, 50, 60, 75, 90, 120])
    for (let offsetS = 0; offsetS < intervalS; offsetS += 0.5) {
      const step = stepForScrapes(300, samplesIn(300, intervalS, offsetS), 15);
      expect(step, `${intervalS} s scrapes, first ${offsetS} s into the range`).toBeLessThanOrEqual(
        Math.max(15, intervalS),
      );
    }
});

test('the step always divides the range, so its last point is the end itself', () => {
  for (let samples = 2; samples <= 40; samples++) {
    const step = stepForScrapes(300, samples, 15);
    expect(300 % step).toBe(0);
    expect(step).toBeGreaterThanOrEqual(15);
  }
  expect(stepForScrapes(280, 9, 15)).toBe(28);
  expect(stepForScrapes(299.5, 10, 15)).toBe(15); // not whole seconds: the least step
});

test('scraped as often as the least step or more often: the least step', () => {
  expect(stepForScrapes(300, 20, 15)).toBe(15);
  expect(stepForScrapes(300, 18, 15)).toBe(15); // 15 s scrapes, the newest 30 s held back
  expect(stepForScrapes(300, 60, 15)).toBe(15);
});

test('nothing to measure an interval by: the least step', () => {
  expect(stepForScrapes(300, undefined, 15)).toBe(15);
  expect(stepForScrapes(300, 1, 15)).toBe(15);
  expect(stepForScrapes(300, Number.NaN, 15)).toBe(15);
});

test('the interval is counted only on series scraped before the range began', () => {
  expect(scrapeCountExpr('hostname="a"', 300)).toBe(
    'max(count_over_time(DCGM_FI_DEV_GPU_UTIL{hostname="a"}[300s]) and count_over_time(DCGM_FI_DEV_GPU_UTIL{hostname="a"}[300s] offset 300s))',
  );
});
