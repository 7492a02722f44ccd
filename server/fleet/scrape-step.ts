/**
 * The step the audit's live view reads its raw scrapes at: the interval dcgm-exporter is scraped at, so that each
 * scrape comes back once. A range query's step finer than the scrapes returns every scrape two or more times
 * (Prometheus and VictoriaMetrics fill each step with the newest sample before it): the same readings, a larger answer.
 *
 * Measured on the independent cluster (512 GPUs scraped every 30 s, the live view's 300 s, read and parsed in Node
 * through collectFleet, best of 5): on Prometheus 2.42, every gauge at 15 s 490 ms, at the 25 s this chooses 379 ms,
 * and only the gauges a verdict reads (collect.ts DIAGNOSED_NAMES) at 25 s 314 ms (2026-12-03). Earlier, every gauge
 * fetched alone: at 15 s 5.9 MB, Prometheus 404 ms and VictoriaMetrics 1.79 322 ms; at 30 s 4.4 MB, 212 and 129 ms.
 *
 * Two rules keep every scrape in the view:
 * - the step divides the range, so the last point is the audit's end itself (a range query's points are its start
 *   plus whole steps; 27 s into 300 s would end 3 s early, and a GPU first scraped in those seconds would be missed);
 * - the interval is measured only on series scraped before the range began: a series that has just appeared (a
 *   Prometheus started a minute ago, a new host) holds fewer samples than its interval implies.
 */
import type { PrometheusClient } from './prometheus-api.ts';

/**
 * The step for a read of the last `rangeS` seconds: the largest whole second that divides `rangeS` and is at most
 * `rangeS` over one more than the most GPU-Util samples a series holds in them (the most often scraped exporter
 * decides, so no host loses a scrape), and never under `leastS`. `leastS` when no series has two samples in the range,
 * or when no such divisor exists (nothing to measure an interval by, or a range it cannot split evenly).
 *
 * Why one more: scrapes every I seconds leave between R/I − 1 and R/I + 1 samples in R seconds (where the range's
 * ends fall among them; Prometheus 2's ranges are closed, so both ends can hold one), so R/(n + 1) is under I
 * whatever n was counted, while R/n can be over it (45 s scrapes, 6 samples in 300 s: 50 s would skip scrapes).
 * Scrapes every 30 s read at 25 s: 12 points for 10 scrapes, against 20 at a fixed 15 s.
 * @example stepForScrapes(300, 10, 15) // 25: 30 s scrapes (27.3 s does not divide 300 s)
 * @example stepForScrapes(300, 5, 15) // 50: 1-minute scrapes
 * @example stepForScrapes(300, 21, 15) // 15: scraped every 15 s or more often
 */
export function stepForScrapes(rangeS: number, samples: number | undefined, leastS: number): number {
  if (samples === undefined || !Number.isFinite(samples) || samples < 2) return leastS;
  if (!Number.isInteger(rangeS) || rangeS <= 0) return leastS;
  for (let step = Math.floor(rangeS / (samples + 1)); step > leastS; step--) if (rangeS % step === 0) return step;
  return leastS;
}

/**
 * The query for the most GPU-Util samples any series that `sel` (matchers, no braces) selects holds in the last
 * `rangeS` seconds, counting only series that also have samples in the `rangeS` before (scraped the whole range).
 */
export const scrapeCountExpr = (sel: string, rangeS: number): string =>
  `max(count_over_time(DCGM_FI_DEV_GPU_UTIL{${sel}}[${rangeS}s]) and count_over_time(DCGM_FI_DEV_GPU_UTIL{${sel}}[${rangeS}s] offset ${rangeS}s))`;

/** One instant query: the step the live view reads the GPUs that `sel` (matchers, no braces) selects at. */
export async function scrapeStepS(
  client: PrometheusClient,
  sel: string,
  endS: number,
  rangeS: number,
  leastS: number,
): Promise<number> {
  const r = await client.query(scrapeCountExpr(sel, rangeS), endS);
  return stepForScrapes(rangeS, r[0]?.value, leastS);
}
