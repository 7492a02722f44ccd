/**
 * Text a lab chart draws beside its plot: the y-axis unit, and where each threshold's label goes so it
 * never sits on its own dashed line, leaves the plot, or lands on another label. Pure (pixels in, pixels out).
 */
import { METRICS, type MetricId } from './lab/metrics.ts';

/**
 * The unit of a chart's y axis, from its first metric: "%", "W", "samples/s" (a bare "/s" says per
 * second of what), "share of time" for 0/1 flags; "" for a plain count.
 * @example axisUnit(['samplesPerSec']) // "samples/s"
 */
export function axisUnit(metrics: readonly MetricId[]): string {
  const id = metrics[0];
  if (!id) return '';
  const { unit, label } = METRICS[id];
  if (unit === '0/1') return 'share of time';
  if (unit.startsWith('/')) return label.toLowerCase().endsWith(unit) ? label.toLowerCase() : `per ${unit.slice(1)}`;
  return unit;
}

/** A label's box, in the plot's pixels: `top` to `top + heightPx`. */
export interface LabelSpot {
  top: number;
  /** Whether it sits above its line (else below). */
  above: boolean;
}

const overlaps = (a: number, b: number, h: number) => Math.abs(a - b) < h;

/**
 * Where each threshold label goes: above its line by `gapPx`, or below it when above would leave the
 * plot (`plotTop`..`plotBottom`) or land on a label already placed; lines are taken top to bottom.
 */
export function placeThresholdLabels(
  lineYs: readonly number[],
  plot: { plotTop: number; plotBottom: number },
  labelHeightPx: number,
  gapPx = 3,
): LabelSpot[] {
  const order = lineYs.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  const placed: number[] = [];
  const out: LabelSpot[] = new Array<LabelSpot>(lineYs.length);
  for (const { y, i } of order) {
    const aboveTop = y - gapPx - labelHeightPx;
    const belowTop = y + gapPx;
    const fits = (top: number) => top >= plot.plotTop && top + labelHeightPx <= plot.plotBottom;
    const free = (top: number) => !placed.some((p) => overlaps(p, top, labelHeightPx));
    const above = (fits(aboveTop) && free(aboveTop)) || !(fits(belowTop) && free(belowTop));
    const top = above ? aboveTop : belowTop;
    placed.push(top);
    out[i] = { top, above };
  }
  return out;
}

/** Steps a time axis ticks at, in seconds: round numbers to read (1, 2, 5, 10, 15, 30 s, then whole minutes). */
export const TIME_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600] as const;

/**
 * Where a time axis from `minS` to `maxS`, drawn `widthPx` wide, puts its ticks: every multiple of the smallest
 * step of TIME_STEPS_S that leaves `minGapPx` between labels (whole hours past the last step).
 * @example timeTicks(0, 8, 300) // [0, 2, 4, 6, 8]
 */
export function timeTicks(minS: number, maxS: number, widthPx: number, minGapPx = 50): number[] {
  const span = maxS - minS;
  if (!(span > 0) || !(widthPx > 0)) return Number.isFinite(minS) ? [Math.ceil(minS)] : [];
  const need = (span * minGapPx) / widthPx; // seconds between ticks at the least
  const last = TIME_STEPS_S[TIME_STEPS_S.length - 1]!;
  const step = TIME_STEPS_S.find((s) => s >= need) ?? Math.ceil(need / last) * last;
  const ticks: number[] = [];
  for (let t = Math.ceil(minS / step) * step; t <= maxS + 1e-9; t += step) ticks.push(t);
  return ticks;
}

/** A time tick's label: "30 s". @example timeTickLabel(30) // "30 s" */
export function timeTickLabel(seconds: number): string {
  return `${Math.round(seconds)} s`;
}

/**
 * uPlot legend markers that read as a key, not as checkboxes: no outline (width 0), filled with the series'
 * colour; src/styles/lab.css shapes them as a short thick line. `colorOf(i)` is series i's colour (0 = first).
 */
export function lineLegendMarkers(colorOf: (i: number) => string) {
  return { show: true, width: 0, dash: 'solid', fill: (_u: unknown, seriesIdx: number) => colorOf(seriesIdx - 1) };
}
