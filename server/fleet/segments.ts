/**
 * The audit's window as segments, and each segment's averages from Prometheus.
 *
 * The rule (segmentPlan): at most MAX_SEGMENTS segments, each at least four scrapes long, laid from the window's
 * end back to its start; the segment length (the range query's step) is the window divided by their count, so it
 * grows with the window (1 h → 28 of 2 min 9 s, 24 h → 28 of 51 min 26 s, 7 d → 28 of 6 h) and the segments
 * cover the whole window: the oldest takes the few milliseconds a whole division leaves.
 */
import { CLOCK_EVENT_REASONS } from '../../src/protocol/metrics.ts';
import { DCGM_NAMES_BEFORE_4, DCGM_SERIES } from '../../src/protocol/dcgm.ts';
import {
  hostSamplesOver,
  hostsFromSeries,
  REASON_PREFIX,
  selectorMatchers,
  UTIL_SPREAD_SERIES,
  type FleetHost,
} from './collect.ts';
import type { PrometheusClient, RangeSeries } from './prometheus-api.ts';
import { readInBatches, withBatch, type Batch, type OnBatch } from './batches.ts';

/** The most segments a window is cut into: the range query holds this many points per series. */
export const MAX_SEGMENTS = 28;

/** How a window is cut. */
export interface SegmentPlan {
  /** How many segments. */
  count: number;
  /** The length of each but the oldest, ms. */
  segmentMs: number;
  /** The length of the oldest, ms: `segmentMs` plus what the division left (under `count` ms). */
  oldestMs: number;
}

/**
 * Cuts `windowS` into segments of at least four scrapes of `scrapeS`, at most MAX_SEGMENTS of them, that add up
 * to the window exactly.
 * @example segmentPlan(86_400, 15) // { count: 28, segmentMs: 3_085_714, oldestMs: 3_085_722 }
 */
export function segmentPlan(windowS: number, scrapeS: number): SegmentPlan {
  const windowMs = Math.round(windowS * 1000);
  const count = Math.max(1, Math.min(MAX_SEGMENTS, Math.floor(windowS / (scrapeS * 4))));
  const segmentMs = Math.floor(windowMs / count);
  return { count, segmentMs, oldestMs: windowMs - (count - 1) * segmentMs };
}

/**
 * Points per segment at which the clock event mask is read for its reasons' shares (a subquery): its step grows with
 * the segment, so a 7-day window reads the mask every 3 minutes, not at every 15 s scrape (the costliest part of a
 * long raw audit); a 24 h window still reads every scrape of 30 s.
 */
export const REASON_POINTS = 120;

/**
 * The step of the reasons' subquery, ms: a scrape, or the segment over REASON_POINTS where that is longer.
 * @example reasonStepMs(segmentPlan(7 * 86_400, 15), 15) // 180_000
 */
export const reasonStepMs = (plan: SegmentPlan, scrapeS: number): number =>
  Math.max(Math.round(scrapeS * 1000), Math.ceil(plan.segmentMs / REASON_POINTS));

/** A PromQL duration of `ms` milliseconds (a fractional `…s` is not PromQL). */
export const promDuration = (ms: number): string => `${Math.max(1, Math.round(ms))}ms`;

/**
 * Per-segment averages of every dcgm-exporter gauge in one query per batch of hosts (batches.ts; several where one
 * would be over MAX_QUERY_CHARS). Functions drop `__name__`, and `or` matches
 * series on their labels without it, so each average carries its series name in a label of its own
 * (`saturate_series`) that keeps the union's members apart; it becomes `__name__` again here. Clock event
 * reasons are a bitmask, which has no average: for each limiting reason the query takes the share of scrapes
 * with its bit set (`mask % 2b >= b`), named `reason:<Name>`. GPU-Util's least, 90th percentile and greatest
 * reading in each segment come as `util:min`, `util:p90`, `util:max` (steady.ts reads them beside its mean). Each
 * message of the hosts returned is one segment, stamped with its end.
 */
export async function collectSegments(
  client: PrometheusClient,
  selector: string | undefined,
  endS: number,
  plan: SegmentPlan,
  scrapeS: number,
  nodeNames: Promise<Map<string, string>>,
  batches: Promise<Batch[]>,
  onBatch?: OnBatch,
): Promise<FleetHost[]> {
  // Segments end at endS and step back from it: the newest samples always count (from startS forward, the last
  // point fell up to a segment before endS, and a Prometheus that began scraping minutes ago showed no hours).
  const stepS = plan.segmentMs / 1000;
  const first = (Math.round(endS * 1000) - (plan.count - 1) * plan.segmentMs) / 1000;
  const userSel = selectorMatchers(selector);
  // The reasons' step grows with the window (reasonStepMs), and never holds more points than the engine allows.
  const subStepMs = Math.max(subqueryStepMs(plan.segmentMs, scrapeS * 1000), reasonStepMs(plan, scrapeS));
  const pieces = subqueryPieces(Math.round(first * 1000), Math.round(endS * 1000), plan.segmentMs, subStepMs);
  const read = async (b: Batch) => {
    const out: RangeSeries[] = [];
    // Usually one query; a batch whose selector is long (many hosts, long names) is sent as several.
    for (const expr of orGroups(segmentsParts(withBatch(userSel, b), plan, subStepMs))) {
      const parts: RangeSeries[][] = [];
      for (const [fromMs, toMs] of pieces) parts.push(await client.queryRange(expr, fromMs / 1000, toMs / 1000, stepS));
      out.push(...joinPieces(parts));
    }
    return out;
  };
  const [series, hosts] = await Promise.all([
    batches.then((bs) => readInBatches(bs, read, 'window', onBatch)),
    hostSamplesOver(client, first, endS, stepS, stepS, nodeNames),
  ]);
  for (const s of series) s.labels['__name__'] = s.labels['saturate_series'] ?? '';
  return hostsFromSeries(series, first, endS, stepS, hosts);
}

/**
 * The most points a subquery may be evaluated at across one range query. VictoriaMetrics evaluates a subquery once
 * over the whole range (plus its own range) and refuses more points than `-search.maxPointsPerTimeseries`, 30,000
 * by default: a 7-day window's clock-reason subqueries at a 15 s step need 40,343. The margin covers its rounding
 * (23 points there). Prometheus evaluates a subquery per step and has no such limit; both give the same answer.
 */
export const MAX_SUBQUERY_POINTS = 28_000;

/**
 * The clock-reason subqueries' step: every scrape, unless one segment alone would hold more than half of
 * MAX_SUBQUERY_POINTS (a 1 s scrape over 30 days); then the reasons are sampled as often as that allows.
 * @example subqueryStepMs(21_600_000, 15_000) // 15_000
 */
export function subqueryStepMs(segmentMs: number, scrapeMs: number): number {
  return Math.max(scrapeMs, Math.ceil((2 * segmentMs) / MAX_SUBQUERY_POINTS));
}

/**
 * The segment ends from `firstMs` to `endMs` every `segmentMs`, cut into runs (`[from, to]` in ms) short enough that
 * a subquery at `subStepMs` over each run and one segment before it stays under MAX_SUBQUERY_POINTS.
 * @example subqueryPieces(0, 27 * 21_600_000, 21_600_000, 15_000) // [[0, 388_800_000], [410_400_000, 583_200_000]]
 */
export function subqueryPieces(
  firstMs: number,
  endMs: number,
  segmentMs: number,
  subStepMs: number,
): [number, number][] {
  const perPiece = Math.max(1, Math.floor((MAX_SUBQUERY_POINTS * subStepMs) / Math.max(1, segmentMs)));
  const out: [number, number][] = [];
  for (let from = firstMs; from <= endMs; from += perPiece * segmentMs)
    out.push([from, Math.min(endMs, from + (perPiece - 1) * segmentMs)]);
  return out;
}

/** The series of several pieces of one range query, each series' points joined in time order. */
export function joinPieces(parts: RangeSeries[][]): RangeSeries[] {
  if (parts.length === 1) return parts[0]!;
  const byLabels = new Map<string, RangeSeries>();
  for (const part of parts)
    for (const s of part) {
      const key = JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)));
      const seen = byLabels.get(key);
      if (seen) seen.points.push(...s.points);
      else byLabels.set(key, { labels: s.labels, points: [...s.points] });
    }
  return [...byLabels.values()];
}

/**
 * The longest query the audit sends, in characters. VictoriaMetrics refuses a query over 16,384 bytes
 * (`-search.maxQueryLen`): the segments query names its batch's hosts in each of its ~27 parts, so 50 hosts of
 * 512 GPUs made 38,900 bytes (bench/fleet-scale.ts). The margin covers the rest of the request.
 */
export const MAX_QUERY_CHARS = 15_000;

/**
 * `parts` joined with `or` into as few queries as keep each under `maxChars` (a part longer than that alone is a
 * query of its own). Each part's series carry their own `saturate_series`, so the union of the answers is the answer.
 * @example orGroups(['a', 'b', 'c'], 6) // ['a or b', 'c']
 * @example orGroups(['a', 'b'], 100) // ['a or b']
 */
export function orGroups(parts: readonly string[], maxChars: number = MAX_QUERY_CHARS): string[] {
  const out: string[] = [];
  let group = '';
  for (const p of parts) {
    const joined = group ? `${group} or ${p}` : p;
    if (group && joined.length > maxChars) {
      out.push(group);
      group = p;
    } else group = joined;
  }
  if (group) out.push(group);
  return out;
}

/** The segments query's parts (to be joined with `or`) for the series `user` (matchers without braces) selects. */
function segmentsParts(user: string, plan: SegmentPlan, subStepMs: number): string[] {
  const skip = new Set(['DCGM_FI_DEV_XID_ERRORS', 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS']); // codes and bitmasks have no average
  const names = DCGM_SERIES.filter((s) => s.type === 'gauge' && !skip.has(s.name)).map((s) => s.name);
  const tag = (expr: string, name: string) => `label_replace(${expr}, "saturate_series", "${name}", "", "")`;
  // The mask under dcgm-exporter 4.x's name, or under its name before 4.0 for a GPU that sends only that one
  // (`or` matches without the name, so a GPU that sends both counts once).
  const mask = ['DCGM_FI_DEV_CLOCKS_EVENT_REASONS', DCGM_NAMES_BEFORE_4['DCGM_FI_DEV_CLOCKS_EVENT_REASONS']!]
    .map((n) => `${n}{${user}}`)
    .join(' or ');
  const range = promDuration(plan.segmentMs);
  const util = `DCGM_FI_DEV_GPU_UTIL{${user}}[${range}]`;
  return [
    ...names.map((n) => tag(`avg_over_time(${n}{${user}}[${range}])`, n)),
    // GPU-Util's spread over the segment, which the engine reads beside its mean (steadyWindow).
    tag(`min_over_time(${util})`, UTIL_SPREAD_SERIES.min),
    tag(`quantile_over_time(0.9, ${util})`, UTIL_SPREAD_SERIES.p90),
    tag(`max_over_time(${util})`, UTIL_SPREAD_SERIES.max),
    ...CLOCK_EVENT_REASONS.filter((r) => r.limiting).map((r) =>
      tag(
        // Masks at DCGM's 32-bit blank or above are dropped (a sentinel would set every bit); a negative one has no
        // bit set under PromQL's %, so one comparison is enough.
        `avg_over_time(((((${mask}) < ${0x7ffffff0}) % ${2 * r.bit}) >= bool ${r.bit})[${range}:${promDuration(subStepMs)}])`,
        `${REASON_PREFIX}${r.name}`,
      ),
    ),
  ];
}

/** The hours a segment stamped `sampledAtMs` stands for: the oldest takes the remainder. */
export function segmentHours(plan: SegmentPlan, endS: number, sampledAtMs: number): number {
  const oldestAtMs = Math.round(endS * 1000) - (plan.count - 1) * plan.segmentMs;
  return (sampledAtMs === oldestAtMs ? plan.oldestMs : plan.segmentMs) / 3_600_000;
}
