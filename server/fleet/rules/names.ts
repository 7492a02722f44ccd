/**
 * The names of Saturate's 1-minute recording rules (deploy/prometheus/saturate-rules.yml, written by
 * recording-rules.ts): what the rules record and what the audit reads back (rules-path.ts). One place, so the file
 * and the reader cannot disagree on a name.
 */
import { CLOCK_EVENT_REASONS } from '../../../src/protocol/metrics.ts';
import { DCGM_NAMES_BEFORE_4, DCGM_SERIES } from '../../../src/protocol/dcgm.ts';
import { REASON_PREFIX, UTIL_SPREAD_SERIES } from '../collect.ts';

/** Every GPU's 1-minute means: one series per GPU and `saturate_series` (a dcgm-exporter gauge). */
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
/**
 * Per GPU and limiting clock event reason (`saturate_series="reason:<Name>"`), the minutes of each minute it was
 * active (its share of the minute's mask readings), recorded only where it is more than 0: most GPUs are never
 * throttled, and a series of zeros costs every reader a point per GPU, reason and step. No point is 0.
 */
export const RULE_REASON = 'saturate:dcgm_reason:minutes1m';
/** Per GPU, 1 for each minute its clock event mask was read (either name, DCGM's blank left out): the reasons' base. */
export const RULE_MASK = 'saturate:dcgm_mask:minutes1m';
/**
 * The same over 5 minutes: the sum of the 1-minute points (reason-minutes and mask-minutes). A reason's share of any
 * stretch is `sum_over_time(reason) / sum_over_time(mask)` at either level; no reason series there is a share of 0.
 */
export const RULE_REASON_5M = 'saturate:dcgm_reason:minutes5m';
export const RULE_MASK_5M = 'saturate:dcgm_mask:minutes5m';
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
/** The label that names what a RULE_MEANS series averages (the raw segments query and the hosts' CPU use it too). */
export { SERIES_LABEL } from '../host-samples.ts';

/** The clock event mask under dcgm-exporter 4.x's name and its name before 4.0. */
export const MASK_NAMES = [
  'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
  DCGM_NAMES_BEFORE_4['DCGM_FI_DEV_CLOCKS_EVENT_REASONS']!,
] as const;

/** The dcgm-exporter gauges that have a mean (codes and bitmasks have none): the segments read these. */
export const MEAN_GAUGES: readonly string[] = DCGM_SERIES.filter(
  (s) => s.type === 'gauge' && s.name !== 'DCGM_FI_DEV_XID_ERRORS' && !MASK_NAMES.includes(s.name as never),
).map((s) => s.name);

/**
 * The gauges whose mean decides a segment's state (src/lib/diagnose/: GPU-Util, memory used and memory activity, SM,
 * tensor and DRAM activity, board power for near-idle power, PCIe for a hang): read per segment. The power limit is
 * read too (the share of it drawn), but it holds for the window.
 */
export const SEGMENT_GAUGES: readonly string[] = [
  'DCGM_FI_DEV_GPU_UTIL',
  'DCGM_FI_DEV_MEM_COPY_UTIL',
  'DCGM_FI_PROF_SM_ACTIVE',
  'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE',
  'DCGM_FI_PROF_DRAM_ACTIVE',
  'DCGM_FI_DEV_FB_USED',
  'DCGM_FI_DEV_POWER_USAGE',
  'DCGM_FI_PROF_PCIE_TX_BYTES',
  'DCGM_FI_PROF_PCIE_RX_BYTES',
];

/**
 * Read once for the window on the rules path, each segment given its mean: the power limit (the share of it drawn
 * decides near-idle and low power, and it holds for the window). The other gauges (clocks, temperatures, free memory,
 * occupancy, graphics engine activity) are evidence only: a segment's state, all the window's hours need, never reads
 * them, so the rules path does not read them at all.
 */
export const WINDOW_GAUGES: readonly string[] = ['DCGM_FI_DEV_POWER_MGMT_LIMIT'];

/** The clock event reasons that hold the clock down (every one but GpuIdle), with their bits. */
export const LIMITING_REASONS = CLOCK_EVENT_REASONS.filter((r) => r.limiting);

/** The `saturate_series` value of a reason's share. @example reasonSeries('SwPowerCap') // 'reason:SwPowerCap' */
export const reasonSeries = (name: string): string => `${REASON_PREFIX}${name}`;

export { UTIL_SPREAD_SERIES };
