/** The live view's step from the scrapes it reads (server/fleet/scrape-step.ts). */
import { expect, test } from 'vitest';
import { stepForScrapes } from '../../server/fleet/scrape-step.ts';

test('scrapes every 30 s over 5 minutes: read at their interval, rounded down so none is skipped', () => {
  expect(stepForScrapes(300, 10, 15)).toBe(30);
  expect(stepForScrapes(300, 11, 15)).toBe(27); // a closed range can hold both ends' scrapes
  expect(stepForScrapes(300, 5, 15)).toBe(60); // Prometheus' default 1-minute scrapes
});

test('scrapes as often as the least step or more often: the least step', () => {
  expect(stepForScrapes(300, 20, 15)).toBe(15);
  expect(stepForScrapes(300, 60, 15)).toBe(15);
});

test('nothing to measure an interval by: the least step', () => {
  expect(stepForScrapes(300, undefined, 15)).toBe(15);
  expect(stepForScrapes(300, 1, 15)).toBe(15);
  expect(stepForScrapes(300, Number.NaN, 15)).toBe(15);
});
