/**
 * Lab checks written as data, and their evaluator. A check names a metric, how to aggregate it over
 * a trailing window, and a threshold; `all`, `any` and `forAtLeastS` combine them. Pure: the same
 * points always give the same result, and the clock is the points' own timestamps (so a simulator
 * running at 10× speed needs no special case).
 *
 * @example
 * const check: Check = { metric: 'gpuUtilPct', agg: 'mean', windowS: 10, op: '<', value: 40 };
 * validateCheck(check);                 // [] when sound; messages that say the fix otherwise
 * evaluateCheck(check, points).state;   // 'pass' | 'fail' | 'waiting' | 'unknown'
 */
import {
  formatMetric,
  isMetricId,
  METRICS,
  METRIC_IDS,
  type MetricId,
  type MetricInfo,
  type MetricPoint,
} from './lab/metrics.ts';

export const AGGS = ['mean', 'min', 'max', 'p5', 'p50', 'p95', 'stddev', 'last'] as const;
export type Agg = (typeof AGGS)[number];
export const OPS = ['<', '<=', '>', '>='] as const;
export type Op = (typeof OPS)[number];

/** A threshold on one metric aggregated over the last `windowS` seconds. */
export interface MetricCheck {
  metric: MetricId;
  agg: Agg;
  windowS: number;
  op: Op;
  value: number;
  /** Compare against this multiple of the previous step's mean instead of an absolute value. */
  ratioTo?: 'previous-step';
}
/** A check: one threshold, all of several, any of several, or one held continuously. */
export type Check = MetricCheck | { all: Check[] } | { any: Check[] } | { forAtLeastS: number; check: Check };

/** The lab server's default sampling interval, seconds. */
export const SAMPLE_INTERVAL_S = 0.5;
/** Shortest window: two samples at the default interval. */
export const MIN_WINDOW_S = 1;
/** Longest window a check may use. */
export const MAX_WINDOW_S = 300;
/** How much history the lab page keeps per step; windows and holds must fit in it. */
export const MAX_HISTORY_S = 600;

export type CheckState = 'pass' | 'fail' | 'waiting' | 'unknown';
/** The outcome of a check, with a sentence for the learner. */
export interface CheckResult {
  state: CheckState;
  /** E.g. "mean GPU-Util over 10 s: 23% (needs < 40%)". */
  text: string;
  /** The aggregated value, for leaf checks with data. */
  observed: number | null;
  children: CheckResult[];
}

/** Extra inputs: the previous step's means, for `ratioTo`. */
export interface CheckContext {
  baseline?: Partial<Record<MetricId, number | null>>;
}

const isLeaf = (c: Check): c is MetricCheck => 'metric' in c;
/** How an operator reads: "≥" rather than ">=". */
const opText = (op: Op): string => (op === '<=' ? '≤' : op === '>=' ? '≥' : op);

/** Every metric a check reads. */
export function checkMetrics(c: Check): MetricId[] {
  if (isLeaf(c)) return [c.metric];
  const kids = 'all' in c ? c.all : 'any' in c ? c.any : [c.check];
  return [...new Set(kids.flatMap(checkMetrics))];
}

/** The longest history (seconds) a check needs to be decided. */
export function checkSpanS(c: Check): number {
  if (isLeaf(c)) return c.windowS;
  if ('forAtLeastS' in c) return c.forAtLeastS + checkSpanS(c.check);
  return Math.max(...('all' in c ? c.all : c.any).map(checkSpanS));
}

/**
 * Problems that make a check meaningless or impossible, each naming where it is (`path`) and the fix.
 * Takes the parsed data with `metric` still a plain string.
 */
export function validateCheck(c: unknown, path = 'check', insideHold = false): string[] {
  const o = c as Record<string, unknown>;
  if ('all' in o || 'any' in o) {
    const key = 'all' in o ? 'all' : 'any';
    const kids = o[key] as unknown[];
    if (!Array.isArray(kids) || kids.length === 0) return [`${path}.${key}: list at least one check.`];
    return kids.flatMap((k, i) => validateCheck(k, `${path}.${key}[${i}]`, insideHold));
  }
  if ('forAtLeastS' in o) {
    const s = o['forAtLeastS'] as number;
    const problems: string[] = [];
    if (insideHold)
      problems.push(
        `${path}: a forAtLeastS inside another forAtLeastS is not supported; hold the combined check once.`,
      );
    if (!(s > 0) || s > MAX_WINDOW_S)
      problems.push(
        `${path}.forAtLeastS: ${s} s is impossible; use between ${SAMPLE_INTERVAL_S} and ${MAX_WINDOW_S} s.`,
      );
    problems.push(...validateCheck(o['check'], `${path}.check`, true));
    if (problems.length === 0 && checkSpanS(c as Check) > MAX_HISTORY_S) {
      problems.push(
        `${path}: holding for ${s} s plus the inner window needs ${checkSpanS(c as Check)} s of history, but the page keeps ${MAX_HISTORY_S} s. Shorten the hold or the window.`,
      );
    }
    return problems;
  }
  const metric = String(o['metric']);
  if (!isMetricId(metric)) return [`${path}.metric: unknown metric "${metric}". Use one of: ${METRIC_IDS.join(', ')}.`];
  const info: MetricInfo = METRICS[metric];
  const problems: string[] = [];
  const w = o['windowS'] as number;
  if (!(w >= MIN_WINDOW_S))
    problems.push(
      `${path}.windowS: ${w} s cannot hold two samples at the ${SAMPLE_INTERVAL_S} s interval; use at least ${MIN_WINDOW_S} s.`,
    );
  if (w > MAX_WINDOW_S)
    problems.push(`${path}.windowS: ${w} s is longer than the ${MAX_WINDOW_S} s a check may look back; shorten it.`);
  const v = o['value'] as number;
  const op = o['op'] as Op;
  if (o['ratioTo'] !== undefined) {
    if (!(v > 0))
      problems.push(
        `${path}.value: with ratioTo the value is a multiple of the previous step (e.g. 2 for "twice"); it must be above 0.`,
      );
    return problems;
  }
  const top = info.practicalMax ?? info.max;
  const never =
    (op === '>' && v >= top) ||
    (op === '>=' && v > top) ||
    (op === '<' && v <= info.min) ||
    (op === '<=' && v < info.min);
  if (never) {
    const why =
      info.practicalMax !== undefined && v <= info.max
        ? ` (${info.label} tops out near ${info.practicalMax}${info.unit} in practice)`
        : '';
    problems.push(
      `${path}: "${info.label} ${op} ${v}" can never pass: readings lie between ${info.min} and ${info.max}${info.unit}${why}. Fix the threshold.`,
    );
  }
  if (info.unit === '0/1' && (v < 0 || v > 1))
    problems.push(`${path}.value: ${info.label} is 0 or 1 per sample, so thresholds are fractions between 0 and 1.`);
  return problems;
}

/** A percentile by linear interpolation; `q` in [0, 1]. */
function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[Math.min(sorted.length - 1, lo + 1)] ?? a;
  return a + (b - a) * (pos - lo);
}

/** Aggregates values (non-empty). @example aggregate([1, 2, 3], 'mean') // 2 */
export function aggregate(values: readonly number[], agg: Agg): number {
  const n = values.length;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  switch (agg) {
    case 'mean':
      return mean;
    case 'min':
      return Math.min(...values);
    case 'max':
      return Math.max(...values);
    case 'last':
      return values[n - 1] ?? NaN;
    case 'stddev':
      return Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
    default: {
      const sorted = [...values].sort((a, b) => a - b);
      return quantile(sorted, agg === 'p5' ? 0.05 : agg === 'p50' ? 0.5 : 0.95);
    }
  }
}

/** Typical gap between points, ms (the sampling interval). */
export function typicalGapMs(points: readonly MetricPoint[]): number {
  if (points.length < 2) return SAMPLE_INTERVAL_S * 1000;
  const gaps = points
    .slice(1)
    .map((p, i) => p.tMs - (points[i] as MetricPoint).tMs)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? SAMPLE_INTERVAL_S * 1000;
}

/** Non-null values of `metric` in the `windowS` seconds ending at `points[end]`. */
export function windowValues(
  points: readonly MetricPoint[],
  metric: MetricId,
  windowS: number,
  end = points.length - 1,
): number[] {
  const last = points[end];
  if (!last) return [];
  const from = last.tMs - windowS * 1000;
  const out: number[] = [];
  for (let i = end; i >= 0; i--) {
    const p = points[i] as MetricPoint;
    if (p.tMs <= from) break;
    const v = p.values[metric];
    if (v !== null) out.push(v);
  }
  return out.reverse();
}

/**
 * Plain-words form of a check; an and/or inside another one is grouped ("both … and …", "either … or …", or
 * parentheses for three or more), and set off with a comma, so that mixed checks read one way only.
 * @example describeCheck(c) // "mean GPU-Util over 10 s < 40%"
 * @example describeCheck({ all: [a, { any: [b, c] }] }) // "A, and either B or C"
 */
export function describeCheck(c: Check, nested = false): string {
  if (isLeaf(c)) {
    const target = c.ratioTo ? `${c.value}× the previous step` : formatMetric(c.metric, c.value);
    return `${c.agg} ${METRICS[c.metric].label} over ${c.windowS} s ${opText(c.op)} ${target}`;
  }
  if ('forAtLeastS' in c) return `${describeCheck(c.check, nested)}, held for ${c.forAtLeastS} s`;
  const all = 'all' in c;
  const members = all ? c.all : c.any;
  const parts = members.map((p) => describeCheck(p, true));
  const grouped = members.some((p) => 'all' in p || 'any' in p || ('forAtLeastS' in p && !isLeaf(p.check)));
  const joined = parts.join(`${grouped ? ',' : ''} ${all ? 'and' : 'or'} `);
  // Inside another and/or, a group says where it starts and ends: "A and either B or C", never "A and B or C".
  if (!nested || parts.length < 2) return joined;
  return parts.length === 2 ? `${all ? 'both' : 'either'} ${joined}` : `(${joined})`;
}

const compare = (x: number, op: Op, v: number): boolean =>
  op === '<' ? x < v : op === '<=' ? x <= v : op === '>' ? x > v : x >= v;

function evalLeaf(c: MetricCheck, points: readonly MetricPoint[], end: number, ctx: CheckContext): CheckResult {
  const desc = describeCheck(c);
  const last = points[end];
  if (!last) return { state: 'waiting', text: `${desc}: waiting for data`, observed: null, children: [] };
  const values = windowValues(points, c.metric, c.windowS, end);
  const label = `${c.agg} ${METRICS[c.metric].label} over ${c.windowS} s`;
  if (values.length === 0) {
    const why = last.why[c.metric] ?? METRICS[c.metric as keyof typeof METRICS].label + ' not reported';
    return { state: 'unknown', text: `${label}: can't tell (${why})`, observed: null, children: [] };
  }
  const observed = aggregate(values, c.agg);
  let target = c.value;
  let shown = formatMetric(c.metric, observed);
  if (c.ratioTo) {
    const base = ctx.baseline?.[c.metric] ?? null;
    if (base === null || base <= 0)
      return {
        state: 'unknown',
        text: `${label}: can't tell (no ${METRICS[c.metric].label} from the previous step to compare with)`,
        observed,
        children: [],
      };
    target = c.value * base;
    shown += ` = ${(observed / base).toFixed(1)}× the previous step`;
  }
  const span = last.tMs - (points[0] as MetricPoint).tMs + typicalGapMs(points);
  const needs = c.ratioTo ? `${opText(c.op)} ${c.value}×` : `${opText(c.op)} ${formatMetric(c.metric, c.value)}`;
  if (span < c.windowS * 1000 * 0.95) {
    return {
      state: 'waiting',
      text: `${label}: ${shown} so far (needs ${needs}; ${Math.floor(span / 1000)} of ${c.windowS} s collected)`,
      observed,
      children: [],
    };
  }
  const ok = compare(observed, c.op, target);
  return { state: ok ? 'pass' : 'fail', text: `${label}: ${shown} (needs ${needs})`, observed, children: [] };
}

function combine(kind: 'all' | 'any', kids: CheckResult[]): CheckState {
  const has = (s: CheckState) => kids.some((k) => k.state === s);
  if (kind === 'all') return has('fail') ? 'fail' : has('unknown') ? 'unknown' : has('waiting') ? 'waiting' : 'pass';
  return has('pass') ? 'pass' : has('waiting') ? 'waiting' : has('unknown') ? 'unknown' : 'fail';
}

function evalAt(c: Check, points: readonly MetricPoint[], end: number, ctx: CheckContext): CheckResult {
  if (isLeaf(c)) return evalLeaf(c, points, end, ctx);
  if ('forAtLeastS' in c) {
    const now = evalAt(c.check, points, end, ctx);
    if (now.state !== 'pass') return { ...now, text: `${now.text}; must hold for ${c.forAtLeastS} s`, children: [now] };
    const last = points[end] as MetricPoint;
    let since = last.tMs;
    for (let i = end - 1; i >= 0; i--) {
      const p = points[i] as MetricPoint;
      if (last.tMs - p.tMs >= c.forAtLeastS * 1000) break;
      if (evalAt(c.check, points, i, ctx).state !== 'pass') break;
      since = p.tMs;
    }
    const heldMs = last.tMs - since + typicalGapMs(points);
    const held = heldMs >= c.forAtLeastS * 1000 * 0.95;
    return {
      state: held ? 'pass' : 'waiting',
      text: `${now.text}; held ${Math.min(c.forAtLeastS, Math.floor(heldMs / 1000))} of ${c.forAtLeastS} s`,
      observed: now.observed,
      children: [now],
    };
  }
  const kind = 'all' in c ? 'all' : 'any';
  const kids = ('all' in c ? c.all : c.any).map((k) => evalAt(k, points, end, ctx));
  const state = combine(kind, kids);
  return {
    state,
    text: kids.map((k) => k.text).join(kind === 'all' ? '; ' : ' — or — '),
    observed: null,
    children: kids,
  };
}

/**
 * Evaluates `check` at the last point. Points are oldest first and should start where the step
 * started, so a window is never filled with data from before the fix.
 */
export function evaluateCheck(check: Check, points: readonly MetricPoint[], ctx: CheckContext = {}): CheckResult {
  return evalAt(check, points, points.length - 1, ctx);
}
