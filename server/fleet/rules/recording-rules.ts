/**
 * Writes deploy/prometheus/saturate-rules.yml (`node scripts/fleet-rules.ts`; a test fails when the file and this
 * module differ). Two kinds of 1-minute series per GPU:
 * - aggregates (RULE_MEANS, RULE_UTIL_MIN/MAX, and per host RULE_NODE_CPU/RULE_NODE_MAX_CORE): what the audit's
 *   segments read (rules-path.ts), so a 7-day audit reads 1-minute points, not every scrape. The engine then
 *   decides every state from them, a hang or a straggler included (those need the job's other GPUs: no per-GPU
 *   rule can say them).
 * - states (RULE_STATE): one series per GPU and state, 1 in the state the GPU's own readings decide for that
 *   minute, for dashboards and alerts (`avg_over_time(saturate:gpu_state:1m{state="idle-allocated"}[7d]) * 168`
 *   is GPU-hours). They follow the engine's rules (src/lib/diagnose/gpu.ts, busy.ts, throttle.ts) with its
 *   thresholds (RULE_THRESHOLDS) on readings rounded as it rounds them (shown.ts), for what dcgm-exporter gives
 *   (no process list, no loop throughput). `state="other"` is what needs more than the GPU: waiting on the host
 *   (starved or not needs the host's CPU), busy with nothing moving (a hang, or kernel launches, needs the job and
 *   the host), no memory reading. test/fleet/rules.test.ts runs promtool on readings at every threshold's edge
 *   and expects the engine's own verdict there: a threshold changed on one side fails it.
 */
import { THROTTLE_SHARE } from '../../../src/lib/diagnose/throttle.ts';
import {
  LIMITING_REASONS,
  MASK_NAMES,
  MEAN_GAUGES,
  reasonSeries,
  RULE_MASK,
  RULE_MASK_5M,
  RULE_MEANS,
  RULE_MEANS_5M,
  RULE_NODE_CPU,
  RULE_NODE_MAX_CORE,
  RULE_REASON,
  RULE_REASON_5M,
  RULE_STATE,
  RULE_UTIL_MAX,
  RULE_UTIL_MAX_5M,
  RULE_UTIL_MIN,
  RULE_UTIL_MIN_5M,
  SERIES_LABEL,
  UTIL_SPREAD_SERIES,
} from './names.ts';

/** The diagnosis engine's thresholds, as its rules read them (files and lines named). */
export const RULE_THRESHOLDS = {
  /** gpu.ts diagnoseGpu: `util.mean < 5 && util.p90 < 15` is idle. */
  idleUtilPct: 5,
  idleP90Pct: 15,
  /** gpu.ts idleVerdict: `memUsedGiB >= 1` holds the GPU. */
  heldGiB: 1,
  /** gpu.ts diagnoseGpu: `util.mean < 85` waits; from 85 busy (busy.ts). */
  busyUtilPct: 85,
  /** busy.ts activityVerdict: `sm < 10` with DRAM or memory activity `< 2` (quiet) is "nothing moves". */
  nothingMovesSmPct: 10,
  quietPct: 2,
  /** busy.ts activityVerdict: `sm < 50` is small kernels. */
  smallKernelsSmPct: 50,
  /** busy.ts: `dram >= 60` with tensor `< 25` is memory-bound. */
  memoryBoundDramPct: 60,
  memoryBoundTensorPct: 25,
  /** busy.ts busyVerdict: without SM activity, tensor `>= 30` is compute-bound. */
  computeTensorPct: 30,
  /** throttle.ts THROTTLE_SHARE: a limiting reason active in this share of samples throttles. */
  throttleShare: THROTTLE_SHARE,
} as const;

/** The per-GPU states the rules record (engine kinds), and `other` for what needs the engine's wider view. */
export const RULE_STATES = [
  'throttled',
  'idle',
  'idle-allocated',
  'small-kernels',
  'memory-bound',
  'compute-bound',
  'other',
] as const;

/** Seconds between the points a reason's share is read at within the minute (a subquery's step). */
export const REASON_STEP_S = 10;

const T = RULE_THRESHOLDS;
/** DCGM's 32-bit blank (readings.ts): a mask at or above it is a sentinel, not a mask. */
const MASK_BLANK = 0x7ffffff0;
const mean = (name: string) => `avg_over_time(${name}[1m])`;
const mask = `(${MASK_NAMES.join(' or ')})`;
/** The share of the minute a reason's bit was set (masks at DCGM's blank dropped). */
const reasonShare = (bit: number) =>
  `avg_over_time(((${mask} < ${MASK_BLANK}) % ${2 * bit} >= bool ${bit})[1m:${REASON_STEP_S}s])`;
/** 1 where the minute holds a mask reading (the points reasonShare averages; `>= bool 0` drops the series' name). */
const maskRead = `count_over_time(((${mask} < ${MASK_BLANK}) >= bool 0)[1m:${REASON_STEP_S}s]) > bool 0`;

// The engine's readings over the minute, rounded as it rounds them (shown.ts: whole percents, tenths of a GiB).
const U = `round(${mean('DCGM_FI_DEV_GPU_UTIL')})`;
/** The engine's 90th percentile is its sorted[floor(0.9 n)]: the greatest for the ≤ 10 scrapes of a minute. */
const P90 = `round(max_over_time(DCGM_FI_DEV_GPU_UTIL[1m]))`;
const MEM = `round(${mean('DCGM_FI_DEV_FB_USED')} / 1024, 0.1)`;
const pct = (ratio: string) => `round(${mean(ratio)} * 100)`;
const SM = pct('DCGM_FI_PROF_SM_ACTIVE');
const TENSOR = pct('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE');
const DRAM = pct('DCGM_FI_PROF_DRAM_ACTIVE');
const MEMCOPY = `round(${mean('DCGM_FI_DEV_MEM_COPY_UTIL')})`;

// Each state as a set of GPUs, in the engine's order (throttling first).
const THROTTLED = LIMITING_REASONS.map((r) => `(round(${reasonShare(r.bit)}, 0.01) >= ${T.throttleShare})`).join(
  ' or ',
);
const IDLEISH = `((${U} < ${T.idleUtilPct}) and (${P90} < ${T.idleP90Pct}))`;
const IDLE_ALLOCATED = `((${IDLEISH} and (${MEM} >= ${T.heldGiB})) unless (${THROTTLED}))`;
const IDLE = `((${IDLEISH} and (${MEM} < ${T.heldGiB})) unless (${THROTTLED}))`;
const BUSY = `((${U} >= ${T.busyUtilPct}) unless (${THROTTLED}))`;
const QUIET = `((${DRAM} < ${T.quietPct}) or (${MEMCOPY} < ${T.quietPct}))`;
const NOTHING_MOVES = `((${SM} < ${T.nothingMovesSmPct}) and ${QUIET})`;
const SMALL = `((${BUSY} and (${SM} < ${T.smallKernelsSmPct})) unless ${NOTHING_MOVES})`;
const SM_WIDE = `(${BUSY} and (${SM} >= ${T.smallKernelsSmPct}))`;
const NO_SM = `(${BUSY} unless ${SM})`;
const MEMORY = `(((${SM_WIDE} and (${DRAM} >= ${T.memoryBoundDramPct})) or (${NO_SM} and (${DRAM} >= ${T.memoryBoundDramPct}) unless (${TENSOR} >= ${T.computeTensorPct}))) unless (${TENSOR} >= ${T.memoryBoundTensorPct}))`;
const COMPUTE = `((${SM_WIDE} unless ${MEMORY}) or (${NO_SM} and (${TENSOR} >= ${T.computeTensorPct})))`;
const OTHER = `(${U} unless (${THROTTLED} or ${IDLE_ALLOCATED} or ${IDLE} or ${SMALL} or ${MEMORY} or ${COMPUTE}))`;

const STATE_SETS: Record<(typeof RULE_STATES)[number], string> = {
  throttled: `(${THROTTLED})`,
  idle: IDLE,
  'idle-allocated': IDLE_ALLOCATED,
  'small-kernels': SMALL,
  'memory-bound': MEMORY,
  'compute-bound': COMPUTE,
  other: OTHER,
};

/** A state's 0/1 series: 1 for the GPUs in its set, 0 for every other GPU with a GPU-Util reading. */
export const stateExpr = (state: (typeof RULE_STATES)[number]): string =>
  `(${STATE_SETS[state]} * 0 + 1) or (${U} * 0)`;

const rule = (record: string, expr: string, labels: Record<string, string> = {}) =>
  [
    `      - record: ${record}`,
    `        expr: ${JSON.stringify(expr)}`,
    ...(Object.keys(labels).length
      ? ['        labels:', ...Object.entries(labels).map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)]
      : []),
  ].join('\n');

/**
 * The 5-minute group: rules that read the 1-minute ones (every `saturate_series` at once, its label kept), so a
 * 5-minute mean is the mean of its 1-minute means, and the reasons' and the mask's minutes are the sums of theirs (a
 * reason absent from all five minutes stays absent: a share of 0). A long window's segments read these: 5× fewer
 * points. Rules that read rules: `promtool tsdb create-blocks-from rules` must backfill this group after the 1-minute
 * one is in Prometheus (fiveMinuteRulesYaml, a second pass).
 */
export function fiveMinuteRules(): string[] {
  return [
    rule(RULE_MEANS_5M, `avg_over_time(${RULE_MEANS}[5m])`),
    rule(RULE_REASON_5M, `sum_over_time(${RULE_REASON}[5m])`),
    rule(RULE_MASK_5M, `sum_over_time(${RULE_MASK}[5m])`),
    rule(RULE_UTIL_MIN_5M, `min_over_time(${RULE_UTIL_MIN}[5m])`),
    rule(RULE_UTIL_MAX_5M, `max_over_time(${RULE_UTIL_MAX}[5m])`),
  ];
}

const FIVE_MINUTE_GROUP = `  - name: saturate-gpu-5m\n    interval: 5m\n    rules:\n${fiveMinuteRules().join('\n')}\n`;

/** The 1-minute group's rules; `states: false` leaves out the state series (the audit reads only the aggregates). */
export function minuteRules({ states = true }: { states?: boolean } = {}): string[] {
  const nodeBusy = '1 - rate(node_cpu_seconds_total{mode="idle"}[2m])';
  return [
    ...MEAN_GAUGES.map((n) => rule(RULE_MEANS, mean(n), { [SERIES_LABEL]: n })),
    // Only where a reason was active: a 0 is the absence of a point (RULE_REASON).
    ...LIMITING_REASONS.map((r) =>
      rule(RULE_REASON, `${reasonShare(r.bit)} > 0`, { [SERIES_LABEL]: reasonSeries(r.name) }),
    ),
    rule(RULE_MASK, maskRead),
    rule(RULE_UTIL_MIN, 'min_over_time(DCGM_FI_DEV_GPU_UTIL[1m])', { [SERIES_LABEL]: UTIL_SPREAD_SERIES.min }),
    rule(RULE_UTIL_MAX, 'max_over_time(DCGM_FI_DEV_GPU_UTIL[1m])', { [SERIES_LABEL]: UTIL_SPREAD_SERIES.max }),
    rule(RULE_NODE_CPU, `avg by (instance) (${nodeBusy})`),
    rule(RULE_NODE_MAX_CORE, `max by (instance) (${nodeBusy})`),
    ...(states ? RULE_STATES.map((s) => rule(RULE_STATE, stateExpr(s), { state: s })) : []),
  ];
}

const HEADER = `# Saturate's GPU recording rules for Prometheus (and VictoriaMetrics vmalert, Thanos Ruler, Mimir's ruler).
# GENERATED by \`node scripts/fleet-rules.ts\` from server/fleet/rules/recording-rules.ts: edit that, not this.
#
# saturate-gpu-1m: per GPU, every minute,
#   ${RULE_MEANS}{${SERIES_LABEL}="<dcgm-exporter gauge>"}: the minute's mean;
#   ${RULE_REASON}{${SERIES_LABEL}="reason:<clock event reason>"}: the share of the minute a limiting reason
#     was active (DCGM_FI_DEV_CLOCKS_EVENT_REASONS, or DCGM_FI_DEV_CLOCK_THROTTLE_REASONS before dcgm-exporter 4.0),
#     recorded ONLY where it is above 0 (no point: not active);
#   ${RULE_MASK}: 1 for each minute the mask was read (the reasons' base: a GPU without it exports no reasons);
#   ${RULE_UTIL_MIN} / ${RULE_UTIL_MAX}: GPU-Util's least and greatest reading in the minute;
#   ${RULE_NODE_CPU} / ${RULE_NODE_MAX_CORE}: per node-exporter host, its cores' mean and busiest busy share;
#   ${RULE_STATE}{state="…"}: 1 in the state the GPU's own readings decide (thresholds of the diagnosis engine,
#     src/lib/diagnose/), else 0. "other" needs more than the GPU (the host's CPU, the job's other GPUs): the audit
#     decides it from the aggregates. GPU-hours in a state over a week:
#     avg_over_time(${RULE_STATE}{state="idle-allocated"}[7d]) * 168
# saturate-gpu-5m: per GPU, every 5 minutes, ${RULE_MEANS_5M}, ${RULE_UTIL_MIN_5M} and ${RULE_UTIL_MAX_5M}: the same
#   over 5 minutes, read from the 1-minute series, for windows whose segments are 20 minutes or longer (about 9 h and
#   up): 5× fewer points to read; ${RULE_REASON_5M} and ${RULE_MASK_5M}: the sums of the minutes.
#   A reason's share of any stretch, at either level (no reason series: 0):
#     sum_over_time(${RULE_REASON_5M}[1d]) / ignoring(${SERIES_LABEL}) group_left sum_over_time(${RULE_MASK_5M}[1d])
# \`npm run audit\` reads the aggregates where they cover the window and raw series where they do not. Backfill them
# over data you already hold: promtool tsdb create-blocks-from rules --start <RFC3339> saturate-rules.yml, move the
# blocks into Prometheus's data folder, then run it again for saturate-gpu-5m (rules that read rules need a second pass).
#
# saturate-gpu-waste: the earlier 5-minute rules and the alert, unchanged.`;

const LEGACY = `  - name: saturate-gpu-waste
    interval: 30s
    rules:
      - record: saturate:gpu_util:avg5m
        expr: avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m])
      - record: saturate:gpu_fb_used_mib:avg5m
        expr: avg_over_time(DCGM_FI_DEV_FB_USED[5m])
      - record: saturate:gpu_sm_active:avg5m
        expr: avg_over_time(DCGM_FI_PROF_SM_ACTIVE[5m])

      - record: saturate:gpu_idle
        expr: (saturate:gpu_util:avg5m < bool 5) * (saturate:gpu_fb_used_mib:avg5m < bool 1024)
      - record: saturate:gpu_idle_allocated
        expr: (saturate:gpu_util:avg5m < bool 5) * (saturate:gpu_fb_used_mib:avg5m >= bool 1024)
      - record: saturate:gpu_busy_in_time_not_space
        expr: (saturate:gpu_util:avg5m >= bool 85) * (saturate:gpu_sm_active:avg5m < bool 0.5)

      - record: saturate:gpus_idle_allocated:count
        expr: sum without (gpu, UUID, uuid, device, pci_bus_id, modelName) (saturate:gpu_idle_allocated)

  - name: saturate-gpu-alerts
    rules:
      - alert: GpuIdleButAllocated
        expr: saturate:gpu_idle_allocated == 1
        for: 30m
        labels:
          severity: warning
        annotations:
          summary: 'GPU {{ $labels.gpu }} on {{ $labels.hostname }}{{ $labels.Hostname }} idle but allocated for 30 min'
          description: >-
            Mean GPU-Util has been under 5% for 30 minutes while {{ $value }} GPU holds 1 GiB or more of
            memory: a job or notebook is keeping it from everyone else. Owner: {{ $labels.namespace }}/{{ $labels.pod }}{{ $labels.hpc_job }}.`;

/** Only the 1-minute aggregates the audit reads, as a rules file (a quicker backfill for the benchmark). */
export const aggregateRulesYaml = (): string =>
  `groups:\n  - name: saturate-gpu-1m\n    interval: 1m\n    rules:\n${minuteRules({ states: false }).join('\n')}\n`;

/** Only the 5-minute group, as a rules file: the second backfill pass, once the 1-minute series are in Prometheus. */
export const fiveMinuteRulesYaml = (): string => `groups:\n${FIVE_MINUTE_GROUP}`;

/** The whole rules file. */
export function rulesYaml(): string {
  return `${HEADER}\ngroups:\n  - name: saturate-gpu-1m\n    interval: 1m\n    rules:\n${minuteRules().join('\n')}\n\n${FIVE_MINUTE_GROUP}\n${LEGACY}\n`;
}
