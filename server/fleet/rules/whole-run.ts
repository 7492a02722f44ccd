/**
 * What the rules path reads once for a whole run of segments instead of per segment, and how it is handed to every
 * segment (each series read per segment is MAX_SEGMENTS points a GPU):
 * - the power limit (names.ts WINDOW_GAUGES) is one instant `avg_over_time` over the run, and each segment the GPU
 *   reported in gets that mean; the gauges that are evidence only (clocks, temperatures…) are not read at all;
 * - whether the GPU exports its clock event mask at all is the mask's minutes over the run (`mask:minutes`): a GPU
 *   with none is "reasons not exported", one with some and no reason series has every reason at 0 (collect.ts).
 * The clock event reasons themselves are read per segment, but only where one was active (the rules record no 0).
 */
import { gpuKeyOf, MASK_MINUTES_SERIES } from '../collect.ts';
import { matchersOf } from '../batches.ts';
import type { InstantSeries, RangeSeries } from '../prometheus-api.ts';
import type { RuleLevel } from './coverage.ts';
import { SEGMENT_GAUGES, SERIES_LABEL, WINDOW_GAUGES } from './names.ts';

/** A `saturate_series` matcher for any of `names`. */
const seriesIn = (names: readonly string[]) => `${SERIES_LABEL}=~"${names.join('|')}"`;

/**
 * Per segment of `range`: the gauges that decide its state, and each clock event reason's share of the segment's
 * mask readings where one was active (a reason's minutes over the mask's; no reason series, no point).
 */
export function segmentGaugesExpr(level: RuleLevel, sel: string, range: string): string[] {
  return [
    `avg_over_time(${level.means}{${matchersOf(sel, seriesIn(SEGMENT_GAUGES))}}[${range}])`,
    `(sum_over_time(${level.reasons}{${sel}}[${range}]) / ignoring(${SERIES_LABEL}) group_left sum_over_time(${level.mask}{${sel}}[${range}]))`,
  ];
}

/** Once for the run (`range` ending at its end): the power limit's mean and the minutes the mask was read. */
export function wholeRunExpr(level: RuleLevel, sel: string, range: string): string {
  return [
    `avg_over_time(${level.means}{${matchersOf(sel, seriesIn(WINDOW_GAUGES))}}[${range}])`,
    `label_replace(sum_over_time(${level.mask}{${sel}}[${range}]), "${SERIES_LABEL}", "${MASK_MINUTES_SERIES}", "", "")`,
  ].join(' or ');
}

/** A series' labels without `saturate_series` (and a name), as a key: a GPU's series of one owner. */
export const labelKey = (labels: Record<string, string>): string =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== SERIES_LABEL && k !== '__name__')
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

/**
 * The run-wide values as series over the segments: each at every point of the GPU's GPU-Util mean (the segments it
 * reported in), named by its `saturate_series`. Matched by labels, else by GPU (gpuKeyOf: labels that differ between
 * series, such as a pod's, do not lose the value).
 * @example spreadOverSegments([{ labels: { gpu: '0', saturate_series: 'DCGM_FI_DEV_GPU_UTIL' }, points: [[60, 9]] }], [{ labels: { gpu: '0', saturate_series: 'DCGM_FI_DEV_GPU_TEMP' }, value: 41 }])[0].points // [[60, 41]]
 */
export function spreadOverSegments(segments: readonly RangeSeries[], whole: readonly InstantSeries[]): RangeSeries[] {
  const byLabels = new Map<string, InstantSeries[]>();
  const byGpu = new Map<string, InstantSeries[]>();
  for (const s of whole) {
    for (const [map, key] of [
      [byLabels, labelKey(s.labels)],
      [byGpu, gpuKeyOf(s.labels)],
    ] as const)
      map.set(key, [...(map.get(key) ?? []), s]);
  }
  const out: RangeSeries[] = [];
  for (const u of segments) {
    if (u.labels[SERIES_LABEL] !== 'DCGM_FI_DEV_GPU_UTIL') continue;
    // Its own labels' values first, then its GPU's under other labels: one value per name.
    const same = new Map<string, InstantSeries>();
    for (const s of [...(byLabels.get(labelKey(u.labels)) ?? []), ...(byGpu.get(gpuKeyOf(u.labels)) ?? [])])
      if (!same.has(s.labels[SERIES_LABEL] ?? '')) same.set(s.labels[SERIES_LABEL] ?? '', s);
    for (const s of same.values())
      out.push({
        labels: { ...u.labels, [SERIES_LABEL]: s.labels[SERIES_LABEL] ?? '' },
        points: u.points.map(([t]) => [t, s.value]),
      });
  }
  return out;
}
