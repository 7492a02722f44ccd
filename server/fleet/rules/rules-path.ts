/**
 * The window's segments read through the recording rules where they cover it, raw series where they do not.
 *
 * The rules (recording-rules.ts) hold every GPU's 1-minute means, GPU-Util's least and greatest reading, each
 * clock event reason's share while it is active, the minutes the mask was read, and each host's CPU. A segment's
 * averages are then the mean of its 1-minute points: a 7-day audit reads ~10,000 points a series instead of ~40,000
 * scrapes, and no bitmask subquery. The engine decides every state from them as it does from raw series (steady.ts,
 * then verdictsOf), hangs and stragglers included.
 *
 * Cost: an `or` between range queries costs Prometheus more than its parts (24 h of 512 GPUs, 5-minute rules: the
 * means, least, greatest and 90th percentile in one `or` took 1.8–2.4 s, the four alone 0.9 s in all), so each part is
 * a query of its own. Per segment only what decides its state is read (names.ts SEGMENT_GAUGES, GPU-Util's least
 * and greatest reading, and a reason's share only where one was active: a share of the segment's mask minutes); the
 * power limit and whether the mask is exported at all come once for the run (whole-run.ts), GPU-Util's 90th
 * percentile only for the hosts where it can change a verdict (needsP90: it reads the 1-minute series, 5× the points
 * of the 5-minute ones, and was an eighth of the audit's Prometheus CPU at 512 GPUs), and gauges that are evidence
 * only are not read: 11 series a GPU per segment, not 27.
 *
 * Coverage (coverage.ts): a segment with all of its points but one in the rules is read from them, any other from raw
 * series (the rules began later than the window, stopped, or are not deployed): runs of neighbouring segments make
 * one query each. Segments shorter than MIN_RULES_SEGMENT_MS (windows under about 2 h) are always raw: a mean of two
 * points says little.
 *
 * Long windows (segments of MIN_COARSE_SEGMENT_MS and more: about 9 h 20 min and up) read the 5-minute rules instead,
 * where they hold any of the window: 5× fewer points, each the mean of the 1-minute means it covers (recording-rules.ts).
 * A segment's edges then fall within 5 minutes of a point's, so a state that changes mid-segment may move up to 5
 * minutes of its hours to a neighbouring segment. The 90th percentile, where read, still comes from the 1-minute
 * greatest readings.
 */
import type { FleetHost } from '../collect.ts';
import { hostsFromSeries, selectorMatchers } from '../collect.ts';
import {
  buildHostSamples,
  HOST_GAUGES,
  hostSamplesOver,
  labelled,
  NODE_MAX_CORE,
  NODE_MEAN,
  pointMap,
  splitBy,
  timeline,
} from '../host-samples.ts';
import type { PrometheusClient, RangeSeries } from '../prometheus-api.ts';
import { collectSegments, promDuration, type SegmentPlan } from '../segments.ts';
import { batchesOf, readInBatches, withBatch, type Batch, type OnBatch } from '../batches.ts';
import type { Coverage, RuleLevel } from './coverage.ts';
import { RULE_NODE_CPU, RULE_NODE_MAX_CORE, RULE_UTIL_MAX, SERIES_LABEL, UTIL_SPREAD_SERIES } from './names.ts';
import { labelKey, segmentGaugesExpr, spreadOverSegments, wholeRunExpr } from './whole-run.ts';
import { RULE_THRESHOLDS } from './recording-rules.ts';

export {
  coveredSegments,
  FIVE_MINUTE_LEVEL,
  MIN_COARSE_SEGMENT_MS,
  MIN_RULES_SEGMENT_MS,
  MINUTE_LEVEL,
  type RuleLevel,
} from './coverage.ts';

/** Where the window's hours were read from. */
export type WindowPath = 'recording-rules' | 'raw' | 'mixed';

/** The path the audit took, for the report. */
export interface PathTaken {
  path: WindowPath;
  /** Seconds of the window read from the recording rules (0 on the raw path). */
  rulesS: number;
  /** The first and last instant of the window read from the rules, unix s; null when none was. */
  rulesFromS: number | null;
  rulesToS: number | null;
  /** The rules' step read, s: 60 (the 1-minute rules) or 300 (the 5-minute ones, for long windows); null on raw. */
  rulesStepS: number | null;
  /** The window holds rules of an older rules file, so it was read from raw series (coverage.ts outdatedReasons). */
  rulesOutdated: boolean;
}

/** One run of neighbouring segments, read one way: its hosts, its part of the plan, and its end. */
export interface SegmentRun {
  hosts: FleetHost[];
  plan: SegmentPlan;
  endS: number;
  fromRules: boolean;
  /** The rules' step the run read (fromRules only). */
  stepS?: number;
}

export interface WindowOptions {
  selector: string | undefined;
  endS: number;
  plan: SegmentPlan;
  /** The scrape interval the raw path assumes (segments.ts). */
  scrapeS: number;
  nodeNames: Promise<Map<string, string>>;
  batches: Promise<Batch[]>;
  onBatch?: OnBatch | undefined;
  /** What the rules hold for the window (coverage.ts windowCoverage; nothing covered: raw series only). */
  coverage: Promise<Coverage>;
}

/** Neighbouring segments read the same way, as [first, last] index pairs (oldest first). */
export function runsOf(covered: readonly boolean[]): { from: number; to: number; rules: boolean }[] {
  const out: { from: number; to: number; rules: boolean }[] = [];
  covered.forEach((c, i) => {
    const last = out[out.length - 1];
    if (last && last.rules === c) last.to = i;
    else out.push({ from: i, to: i, rules: c });
  });
  return out;
}

/** The part of `plan` from segment `from` to `to` (oldest first), and where it ends. */
export function subPlan(
  plan: SegmentPlan,
  endS: number,
  from: number,
  to: number,
): { plan: SegmentPlan; endS: number } {
  return {
    plan: { count: to - from + 1, segmentMs: plan.segmentMs, oldestMs: from === 0 ? plan.oldestMs : plan.segmentMs },
    endS: (Math.round(endS * 1000) - (plan.count - 1 - to) * plan.segmentMs) / 1000,
  };
}

/**
 * One run's segments from the rules of `level`: per batch of hosts, the GPUs' deciding means, spreads and active
 * reasons per segment (one range query), and the rest once for the run (one instant query, whole-run.ts); the hosts'
 * CPU. The 90th percentile comes from the 1-minute greatest readings (the engine's own is a minute's greatest), read
 * afterwards for the hosts whose GPUs need it (needsP90), if any.
 */
async function readRules(
  client: PrometheusClient,
  user: string,
  plan: SegmentPlan,
  endS: number,
  o: WindowOptions,
  level: RuleLevel,
): Promise<FleetHost[]> {
  const stepS = plan.segmentMs / 1000;
  const first = (Math.round(endS * 1000) - (plan.count - 1) * plan.segmentMs) / 1000;
  const range = promDuration(plan.segmentMs);
  const whole = promDuration(plan.oldestMs + (plan.count - 1) * plan.segmentMs);
  const q = (expr: string) => client.queryRange(expr, first, endS, stepS);
  // Each part a query of its own: an `or` between range queries costs Prometheus more than the parts themselves.
  const parts = (sel: string) => [
    ...segmentGaugesExpr(level, sel, range),
    `min_over_time(${level.min}{${sel}}[${range}])`,
    `max_over_time(${level.max}{${sel}}[${range}])`,
  ];
  // The 90th percentile of the minutes' greatest readings: the engine's own is a minute's greatest (≤ 10 scrapes).
  const p90 = (sel: string) =>
    q(labelled(`quantile_over_time(0.9, ${RULE_UTIL_MAX}{${sel}}[${range}])`, UTIL_SPREAD_SERIES.p90));
  const read = async (b: Batch) => {
    const sel = withBatch(user, b);
    const [segments, once] = await Promise.all([
      Promise.all(parts(sel).map(q)).then((r) => r.flat()),
      client.query(wholeRunExpr(level, sel, whole), endS),
    ]);
    const hosts = needsP90(segments);
    const spread = hosts.length ? await p90(withBatch(user, batchesOf(hosts, hosts.length)[0]!)) : [];
    return [...segments, ...spread, ...spreadOverSegments(segments, once)];
  };
  // The hosts in one query: the busiest core's share and the all-core mean (each labelled: VictoriaMetrics keeps a
  // rule's name through avg_over_time, Prometheus drops it), and load and memory (named).
  const hostExpr = [
    labelled(`avg_over_time(${RULE_NODE_MAX_CORE}[${range}])`, NODE_MAX_CORE),
    labelled(`avg_over_time(${RULE_NODE_CPU}[${range}])`, NODE_MEAN),
    `{__name__=~"${HOST_GAUGES.join('|')}"}`,
  ].join(' or ');
  const [series, host, nodeOf] = await Promise.all([
    o.batches.then((bs) => readInBatches(bs, read, 'window (recording rules)', o.onBatch)),
    q(hostExpr),
    o.nodeNames,
  ]);
  for (const s of series) s.labels['__name__'] = s.labels[SERIES_LABEL] ?? '';
  const [cpu, gauges] = splitBy(host, (s) => s.labels[SERIES_LABEL] !== undefined);
  const [cpuMean, maxCore] = splitBy(cpu, (s) => s.labels[SERIES_LABEL] === NODE_MEAN);
  // Hosts without the node rules (node-exporter rules not deployed) are read raw.
  const hosts = maxCore.length
    ? buildHostSamples(maxCore, gauges, nodeOf, timeline(first, endS, stepS), cpuMean)
    : await hostSamplesOver(client, first, endS, stepS, stepS, o.nodeNames);
  return hostsFromSeries(series, first, endS, stepS, hosts);
}

/**
 * The hosts (`instance`) with a GPU whose 90th percentile of GPU-Util can change a segment's verdict: one with a
 * segment whose mean is under the engine's idle line (5%) and whose greatest reading is not under its idle 90th
 * percentile (15%), so that the 90th percentile alone says idle or waiting (src/lib/diagnose/gpu.ts). Elsewhere the
 * mean or the greatest reading decides it (a 90th percentile is never above the greatest), and the segment goes
 * without one (steady.ts). From the segments' GPU-Util means and greatest readings.
 * @example needsP90([{ labels: { instance: 'a', saturate_series: 'DCGM_FI_DEV_GPU_UTIL' }, points: [[60, 4]] }, { labels: { instance: 'a', saturate_series: 'util:max' }, points: [[60, 30]] }]) // ['a']
 */
export function needsP90(segments: readonly RangeSeries[]): string[] {
  // By every label but the series' own name: a GPU whose owner changed in the window has a series for each owner.
  const of = (name: string) =>
    new Map(segments.filter((s) => s.labels[SERIES_LABEL] === name).map((s) => [labelKey(s.labels), s]));
  const maxes = of(UTIL_SPREAD_SERIES.max);
  const out = new Set<string>();
  for (const [key, mean] of of('DCGM_FI_DEV_GPU_UTIL')) {
    const max = maxes.get(key);
    if (!max) continue;
    const top = pointMap(max);
    const low = [...pointMap(mean)].some(
      ([t, v]) => v < RULE_THRESHOLDS.idleUtilPct && (top.get(t) ?? 0) >= RULE_THRESHOLDS.idleP90Pct,
    );
    if (low) out.add(mean.labels['instance'] ?? '');
  }
  return [...out];
}

/** The window's segments, each run from the rules or raw, and the path taken. */
export async function windowSegments(
  client: PrometheusClient,
  o: WindowOptions,
): Promise<{ runs: SegmentRun[]; taken: PathTaken }> {
  const user = selectorMatchers(o.selector);
  const { plan, endS } = o;
  const { level, covered, outdated } = await o.coverage;
  const runs = await Promise.all(
    runsOf(covered).map(async (r): Promise<SegmentRun> => {
      const part = subPlan(plan, endS, r.from, r.to);
      const hosts = r.rules
        ? await readRules(client, user, part.plan, part.endS, o, level)
        : await collectSegments(client, o.selector, part.endS, part.plan, o.scrapeS, o.nodeNames, o.batches, o.onBatch);
      return { hosts, ...part, fromRules: r.rules, ...(r.rules ? { stepS: level.intervalS } : {}) };
    }),
  );
  return { runs, taken: { ...pathTaken(runs), rulesOutdated: outdated } };
}

/** What the runs read, for the report. */
export function pathTaken(runs: readonly Omit<SegmentRun, 'hosts'>[]): Omit<PathTaken, 'rulesOutdated'> {
  const rules = runs.filter((r) => r.fromRules);
  const seconds = (r: Omit<SegmentRun, 'hosts'>) => (r.plan.oldestMs + (r.plan.count - 1) * r.plan.segmentMs) / 1000;
  const rulesS = rules.reduce((a, r) => a + seconds(r), 0);
  return {
    path: rules.length === 0 ? 'raw' : rules.length === runs.length ? 'recording-rules' : 'mixed',
    rulesS,
    rulesFromS: rules.length ? Math.min(...rules.map((r) => r.endS - seconds(r))) : null,
    rulesToS: rules.length ? Math.max(...rules.map((r) => r.endS)) : null,
    rulesStepS: rules[0]?.stepS ?? null,
  };
}
