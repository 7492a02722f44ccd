/**
 * Which of the window's segments the recording rules cover, and what that coverage says on its own: one query counts,
 * per segment, the GPU-Util points the rules hold (the most any GPU has). A segment with all of its points but one
 * is read from the rules (rules-path.ts), any other from raw series. Long windows look at the 5-minute rules first.
 *
 * The same counts give the data span (how far back the GPUs' samples reach) when the rules cover the oldest segment:
 * a rule's point exists only where a scrape did, so the raw `timestamp()` subquery, which reads every scrape of the
 * window (about one plain `avg_over_time` of its own), is not needed then.
 */
import type { PrometheusClient } from '../prometheus-api.ts';
import { promDuration, type SegmentPlan } from '../segments.ts';
import { REASON_PREFIX } from '../collect.ts';
import { matchersOf } from '../batches.ts';
import { timeline } from '../host-samples.ts';
import {
  RULE_COARSE_INTERVAL_S,
  RULE_INTERVAL_S,
  RULE_MASK,
  RULE_MASK_5M,
  RULE_MEANS,
  RULE_MEANS_5M,
  RULE_REASON,
  RULE_REASON_5M,
  RULE_UTIL_MAX,
  RULE_UTIL_MAX_5M,
  RULE_UTIL_MIN,
  RULE_UTIL_MIN_5M,
  SERIES_LABEL,
} from './names.ts';

/**
 * One level of the GPU aggregates: the means, GPU-Util's least and greatest, the reasons' and the mask's minutes
 * (recording-rules.ts: a reason only where it was active), and how often they are recorded.
 */
export interface RuleLevel {
  means: string;
  min: string;
  max: string;
  reasons: string;
  mask: string;
  intervalS: number;
}

/** The 1-minute aggregates. */
export const MINUTE_LEVEL: RuleLevel = {
  means: RULE_MEANS,
  min: RULE_UTIL_MIN,
  max: RULE_UTIL_MAX,
  reasons: RULE_REASON,
  mask: RULE_MASK,
  intervalS: RULE_INTERVAL_S,
};
/** The 5-minute aggregates: 5× fewer points, read for segments of MIN_COARSE_SEGMENT_MS and longer. */
export const FIVE_MINUTE_LEVEL: RuleLevel = {
  means: RULE_MEANS_5M,
  min: RULE_UTIL_MIN_5M,
  max: RULE_UTIL_MAX_5M,
  reasons: RULE_REASON_5M,
  mask: RULE_MASK_5M,
  intervalS: RULE_COARSE_INTERVAL_S,
};

/** The shortest segment read from the rules: four of their points. */
export const MIN_RULES_SEGMENT_MS = 4 * RULE_INTERVAL_S * 1000;
/** The shortest segment read from the 5-minute rules: four of their points (windows of about 9 h 20 min and up). */
export const MIN_COARSE_SEGMENT_MS = 4 * RULE_COARSE_INTERVAL_S * 1000;

/**
 * What the rules hold for a window: the level read, per segment (oldest first) its points and whether it is covered.
 * `outdated`: the window holds rules of an older rules file (below), so nothing is read from them.
 */
export interface Coverage {
  level: RuleLevel;
  points: (number | undefined)[];
  covered: boolean[];
  outdated: boolean;
}

/**
 * A selector for the clock event reasons as an older rules file recorded them: a share among the 1-minute means
 * (`saturate:dcgm:avg1m{saturate_series="reason:…"}`), where the audit now reads reason and mask minutes (names.ts).
 * Read as they are now, such a window has no mask minutes, and every GPU's reasons would look "not exported".
 */
export const outdatedReasons = (user: string): string =>
  `${RULE_MEANS}{${matchersOf(`${SERIES_LABEL}=~"${REASON_PREFIX}.+"`, user)}}`;

/**
 * Which segments (oldest first) the rules cover: all their points (one every `intervalS`) but one.
 * @example coveredSegments([10, 51, 52], 3_085_714, 3_085_722) // [false, true, true]
 * @example coveredSegments([3, 9, 10], 3_085_714, 3_085_722, 300) // [false, true, true]
 */
export function coveredSegments(
  points: readonly (number | undefined)[],
  segmentMs: number,
  oldestMs: number,
  intervalS: number = RULE_INTERVAL_S,
): boolean[] {
  return points.map((n, i) => {
    const whole = Math.floor((i === 0 ? oldestMs : segmentMs) / (intervalS * 1000));
    return n !== undefined && n >= Math.max(1, whole - 1);
  });
}

/**
 * Seconds of the window the GPUs reported in, from the rules' points, when the rules cover the oldest segment (the
 * oldest sample is then in it); else null (ask raw series). To within one interval of the rules.
 * @example rulesDataSpanS({ count: 28, segmentMs: 3_085_714, oldestMs: 3_085_722 }, [52, 51], [true, true], 60, 86_400) // 86_400
 * @example rulesDataSpanS({ count: 2, segmentMs: 600_000, oldestMs: 600_000 }, [10, 10], [true, true], 60, 1_200) // 1_200
 */
export function rulesDataSpanS(
  plan: SegmentPlan,
  points: readonly (number | undefined)[],
  covered: readonly boolean[],
  intervalS: number,
  windowS: number,
): number | null {
  if (!covered[0]) return null;
  const newer = ((plan.count - 1) * plan.segmentMs) / 1000;
  return Math.min(windowS, newer + (points[0] ?? 0) * intervalS);
}

/** Per segment (oldest first), the most GPU-Util points any GPU has in the rules of `level`; one query. */
async function rulePoints(
  client: PrometheusClient,
  user: string,
  plan: SegmentPlan,
  endS: number,
  level: RuleLevel,
): Promise<(number | undefined)[]> {
  const stepS = plan.segmentMs / 1000;
  const first = (Math.round(endS * 1000) - (plan.count - 1) * plan.segmentMs) / 1000;
  const sel = matchersOf(`${SERIES_LABEL}="DCGM_FI_DEV_GPU_UTIL"`, user);
  const r = await client.queryRange(
    `max(count_over_time(${level.means}{${sel}}[${promDuration(plan.segmentMs)}]))`,
    first,
    endS,
    stepS,
  );
  const at = new Map((r[0]?.points ?? []).map(([t, v]) => [Math.round(t * 1000), v]));
  return timeline(first, endS, stepS).map((t) => at.get(Math.round(t * 1000)));
}

/**
 * What the rules hold for the window (`rules: false`, or segments too short: nothing covered, no query). Long
 * segments read the 5-minute rules where they hold any of the window; else (not deployed, or begun later) the 1-minute.
 */
export async function windowCoverage(
  client: PrometheusClient,
  user: string,
  plan: SegmentPlan,
  endS: number,
  rules: boolean,
): Promise<Coverage> {
  const none = (outdated: boolean): Coverage => ({
    level: MINUTE_LEVEL,
    points: [],
    covered: new Array<boolean>(plan.count).fill(false),
    outdated,
  });
  if (!rules || plan.segmentMs < MIN_RULES_SEGMENT_MS) return none(false);
  const at = async (level: RuleLevel): Promise<Coverage> => {
    const points = await rulePoints(client, user, plan, endS, level);
    const covered = coveredSegments(points, plan.segmentMs, plan.oldestMs, level.intervalS);
    return { level, points, covered, outdated: false };
  };
  // Asked beside the coverage: a selector no series matches (rules as they are now) is an index lookup, no samples.
  const windowMs = plan.oldestMs + (plan.count - 1) * plan.segmentMs;
  const outdated = client
    .query(`count(last_over_time(${outdatedReasons(user)}[${promDuration(windowMs)}]))`, endS)
    .then((r) => (r[0]?.value ?? 0) > 0);
  const coverage = (async () => {
    if (plan.segmentMs >= MIN_COARSE_SEGMENT_MS) {
      const coarse = await at(FIVE_MINUTE_LEVEL);
      if (coarse.covered.some(Boolean)) return coarse;
    }
    return at(MINUTE_LEVEL);
  })();
  const [old, c] = await Promise.all([outdated, coverage]);
  return old ? none(true) : c;
}
