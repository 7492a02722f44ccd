/** The live view's step from the scrapes it reads (server/fleet/scrape-step.ts). */
import { expect, test } from 'vitest';
import { scrapeCountExpr, stepForScrapes } from '../../server/fleet/scrape-step.ts';

test('scrapes every 30 s over 5 minutes: read at their interval, each once', () => {
  expect(stepForScrapes(300, 10, 15)).toBe(30);
  expect(stepForScrapes(300, 9, 15)).toBe(30); // VictoriaMetrics holds back the newest 30 s
  expect(stepForScrapes(300, 5, 15)).toBe(60); // Prometheus' default 1-minute scrapes
});

test('the step always divides the range, so its last point is the end itself', () => {
  expect(stepForScrapes(300, 11, 15)).toBe(25); // 27.3 s does not divide 300 s
  expect(stepForScrapes(300, 7, 15)).toBe(30); // 42.9 s: 30 s is the largest divisor under it
  for (let samples = 2; samples <= 40; samples++) {
    const step = stepForScrapes(300, samples, 15);
    expect(300 % step).toBe(0);
    expect(step).toBeGreaterThanOrEqual(15);
    if (step > 15) expect(step).toBeLessThanOrEqual(300 / samples); // never over the interval: no scrape skipped
  }
  expect(stepForScrapes(280, 10, 15)).toBe(28);
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
