/**
 * The step the live view reads its raw scrapes at: the interval dcgm-exporter is scraped at, so that each scrape
 * comes back once. A range query's step finer than the scrapes returns every scrape two or more times (Prometheus
 * and VictoriaMetrics fill each step with the newest sample before it): the same readings, a larger answer.
 *
 * Measured on the independent cluster (512 GPUs scraped every 30 s, the live view's 300 s, every gauge, fetched and
 * parsed in Node, best of 5; /work/notes/s13/live-variants.ts): at a 15 s step 5.9 MB, Prometheus 2.42 404 ms and
 * VictoriaMetrics 1.79 322 ms; at the scrapes' 30 s 4.4 MB, 212 ms and 129 ms.
 */
import type { PrometheusClient } from './prometheus-api.ts';

/**
 * The step for a read of the last `rangeS` seconds: `rangeS` over the most GPU-Util samples any series has in them
 * (the most often scraped exporter decides, so no host loses a scrape), rounded down to a whole second (a step a
 * little under the interval reads a scrape twice now and then, never skips one), and never finer than `leastS`.
 * `leastS` when no series has two samples in the range (nothing to measure an interval by).
 * @example stepForScrapes(300, 10, 15) // 30: 30 s scrapes
 * @example stepForScrapes(300, 21, 15) // 15: scraped every 15 s or more often
 */
export function stepForScrapes(rangeS: number, samples: number | undefined, leastS: number): number {
  if (samples === undefined || !Number.isFinite(samples) || samples < 2) return leastS;
  return Math.max(leastS, Math.floor(rangeS / samples));
}

/** One instant query: the step the live view reads the GPUs that `sel` (matchers, no braces) selects at. */
export async function liveStepS(
  client: PrometheusClient,
  sel: string,
  endS: number,
  rangeS: number,
  leastS: number,
): Promise<number> {
  const r = await client.query(`max(count_over_time(DCGM_FI_DEV_GPU_UTIL{${sel}}[${rangeS}s]))`, endS);
  return stepForScrapes(rangeS, r[0]?.value, leastS);
}
