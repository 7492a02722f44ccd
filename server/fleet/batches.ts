/**
 * Raw-series queries in batches of hosts, so no single query holds the whole fleet: its answer stays under the
 * size and series caps and its evaluation under the query timeout however large the fleet grows. Hosts are scrape
 * targets (`instance`: one dcgm-exporter per node), listed from Prometheus's index (label values), not from samples.
 */
import type { PrometheusClient } from './prometheus-api.ts';
import { PrometheusError } from './prometheus-error.ts';

/**
 * Hosts per raw-series query. A host of 8 GPUs sends some 19 dcgm-exporter series per GPU, so 50 hosts are about
 * 7,600 series: about 4 MB for the live view and 28 points a series for the window's segments, a fraction of
 * MAX_SERIES (50,000) and MAX_RESPONSE_BYTES with the audit's other queries in flight beside them. A 7-day window of
 * 400 GPUs is some 300 million samples read, which DEFAULT_QUERY_TIMEOUT_S leaves time for.
 */
export const HOSTS_PER_QUERY = 50;

/** One batch: a matcher on `instance` (empty: every series, when the hosts could not be listed). */
export type Batch = string;

/** A PromQL string literal holding a regex that matches exactly `value`. */
const exactly = (value: string): string =>
  value
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"');

/**
 * The `instance` matchers for `targets`, HOSTS_PER_QUERY at a time. The first also matches series without an
 * `instance` label (a federated or recorded series), which the index lists under no value.
 * @example batchesOf(['a:9400', 'b:9400'], 1) // ['instance=~"|a:9400"', 'instance=~"b:9400"']
 */
export function batchesOf(targets: readonly string[] | null, size = HOSTS_PER_QUERY): Batch[] {
  if (!targets) return [''];
  const sorted = [...new Set(targets)].filter(Boolean).sort();
  const out: Batch[] = [];
  for (let i = 0; i < Math.max(1, sorted.length); i += size) {
    const alternatives = sorted.slice(i, i + size).map(exactly);
    out.push(`instance=~"${i === 0 ? ['', ...alternatives].join('|') : alternatives.join('|')}"`);
  }
  return out;
}

/**
 * The batches for the series `match` selects between `startS` and `endS`. An engine without the label values API
 * (it answers that it does not know the path) gets one batch of every series, as before batching.
 */
export async function targetBatches(
  client: PrometheusClient,
  match: string,
  startS: number,
  endS: number,
): Promise<Batch[]> {
  try {
    return batchesOf(await client.labelValues('instance', match, startS, endS));
  } catch (e) {
    if (e instanceof PrometheusError && (e.kind === 'refused' || e.kind === 'bad-query')) return batchesOf(null);
    throw e;
  }
}

/** `matchers` (without braces, some empty) as one selector body. @example matchersOf('a="1"', '', 'b="2"') // 'a="1", b="2"' */
export const matchersOf = (...matchers: string[]): string => matchers.filter(Boolean).join(', ');

/** `user` matchers (without braces) joined with a batch's. */
export const withBatch = (user: string, batch: Batch): string => matchersOf(user, batch);

/** What a long read reports: `done` of `total` batches of `what`. */
export type OnBatch = (what: string, done: number, total: number) => void;

/** Runs `read` for each batch one after another (one batch's answer read at a time) and joins the results. */
export async function readInBatches<T>(
  batches: readonly Batch[],
  read: (batch: Batch) => Promise<T[]>,
  what: string,
  onBatch?: OnBatch,
): Promise<T[]> {
  const out: T[] = [];
  for (const [i, b] of batches.entries()) {
    for (const x of await read(b)) out.push(x);
    onBatch?.(what, i + 1, batches.length);
  }
  return out;
}
