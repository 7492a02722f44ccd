/**
 * The names of Saturate's 1-minute recording rules (deploy/prometheus/saturate-rules.yml, written by
 * recording-rules.ts): what the rules record and what the audit reads back (rules-path.ts). One place, so the file
 * and the reader cannot disagree on a name.
 */
import { CLOCK_EVENT_REASONS } from '../../../src/protocol/metrics.ts';
import { DCGM_NAMES_BEFORE_4, DCGM_SERIES } from '../../../src/protocol/dcgm.ts';
import { REASON_PREFIX, UTIL_SPREAD_SERIES } from '../collect.ts';

/** Every GPU's 1-minute means: one series per GPU and `saturate_series` (a dcgm-exporter gauge, or `reason:<Name>`). */
export const RULE_MEANS = 'saturate:dcgm:avg1m';
/** GPU-Util's least reading in each minute (`saturate_series="util:min"`). */
export const RULE_UTIL_MIN = 'saturate:dcgm_util:min1m';
/** GPU-Util's greatest reading in each minute (`saturate_series="util:max"`). */
export const RULE_UTIL_MAX = 'saturate:dcgm_util:max1m';
/**
 * The same means, least and greatest GPU-Util over 5 minutes (`saturate_series` as in RULE_MEANS): what a long
 * window's segments (20 minutes and more) read, 5× fewer points than the 1-minute series.
 */
export const RULE_MEANS_5M = 'saturate:dcgm:avg5m';
export const RULE_UTIL_MIN_5M = 'saturate:dcgm_util:min5m';
export const RULE_UTIL_MAX_5M = 'saturate:dcgm_util:max5m';
/** How often the 5-minute rules are evaluated, seconds. */
export const RULE_COARSE_INTERVAL_S = 300;
/** Per GPU and state, 1 in the state the GPU's own readings decide for the minute, else 0. */
export const RULE_STATE = 'saturate:gpu_state:1m';
/** Per host (node-exporter instance): the mean busy share of its cores over the minute, 0–1. */
export const RULE_NODE_CPU = 'saturate:node_cpu_busy:avg1m';
/** Per host: its busiest core's busy share over the minute, 0–1. */
export const RULE_NODE_MAX_CORE = 'saturate:node_cpu_busy_max_core:avg1m';
/** How often the 1-minute rules are evaluated, seconds. */
export const RULE_INTERVAL_S = 60;
/** The label that names what a RULE_MEANS series averages (the raw segments query uses it too). */
export const SERIES_LABEL = 'saturate_series';

/** The clock event mask under dcgm-exporter 4.x's name and its name before 4.0. */
export const MASK_NAMES = [
  'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
  DCGM_NAMES_BEFORE_4['DCGM_FI_DEV_CLOCKS_EVENT_REASONS']!,
] as const;

/** The dcgm-exporter gauges that have a mean (codes and bitmasks have none): the segments read these. */
export const MEAN_GAUGES: readonly string[] = DCGM_SERIES.filter(
  (s) => s.type === 'gauge' && s.name !== 'DCGM_FI_DEV_XID_ERRORS' && !MASK_NAMES.includes(s.name as never),
).map((s) => s.name);

/** The clock event reasons that hold the clock down (every one but GpuIdle), with their bits. */
export const LIMITING_REASONS = CLOCK_EVENT_REASONS.filter((r) => r.limiting);

/** The `saturate_series` value of a reason's share. @example reasonSeries('SwPowerCap') // 'reason:SwPowerCap' */
export const reasonSeries = (name: string): string => `${REASON_PREFIX}${name}`;

export { UTIL_SPREAD_SERIES };
