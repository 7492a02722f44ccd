/**
 * One live chart (uPlot) of a lab's metrics with the lesson's thresholds drawn as dashed lines,
 * plus a text summary for screen readers and anyone who prefers numbers. The canvas itself is
 * hidden from assistive technology; the figcaption carries the same information.
 */
import { useEffect, useRef } from 'react';
import '../client/locale-guard.ts'; // before uPlot, which reads navigator.language when it loads
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMetric, METRICS, type MetricId, type MetricPoint } from '../lib/lab/metrics.ts';
import { aggregate, windowValues } from '../lib/checks.ts';
import { axisUnit, lineLegendMarkers, placeThresholdLabels, timeTickLabel, timeTicks } from '../lib/chart-labels.ts';

export interface LabChartProps {
  title: string;
  metrics: MetricId[];
  thresholds: { value: number; label: string }[];
  /** Oldest first; the chart shows the last `spanS` seconds. */
  points: readonly MetricPoint[];
  spanS?: number;
}

const css = (name: string, fallback: string): string =>
  (typeof document === 'undefined' ? '' : getComputedStyle(document.documentElement).getPropertyValue(name).trim()) ||
  fallback;

/** Series colours from the theme (CSS variables in src/styles/lab.css), so dark mode follows. */
const seriesColor = (i: number): string =>
  css(`--series-${i + 1}`, ['#0b6b4f', '#b4531f', '#3b5bdb', '#8e44ad'][i] ?? '#888');

/** "mean 14% (0–22%)" for the last 10 s. */
function summary(points: readonly MetricPoint[], id: MetricId): string {
  const vals = windowValues(points, id, 10);
  if (vals.length === 0)
    return `${METRICS[id].label}: no readings${points.length ? ` (${points[points.length - 1]?.why[id] ?? 'not reported'})` : ''}`;
  return `${METRICS[id].label}: mean ${formatMetric(id, aggregate(vals, 'mean'))} (${formatMetric(id, aggregate(vals, 'min'))} to ${formatMetric(id, aggregate(vals, 'max'))})`;
}

/** A live uPlot chart with thresholds and a text summary. */
export default function LabChart({ title, metrics, thresholds, points, spanS = 120 }: LabChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const thresholdsRef = useRef(thresholds);
  thresholdsRef.current = thresholds;
  const unit = METRICS[metrics[0] as MetricId].unit;
  const pctScale = unit === '%';

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fg = css('--muted', '#5b6270');
    const grid = css('--line', '#dcdfe4');
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 180,
      // A key, not toggles: line swatches (lab.css), and clicks do nothing (the canvas is hidden from screen
      // readers, so a series hidden by a click would be hidden with no way to know or undo it but the pointer).
      legend: { show: true, live: false, markers: lineLegendMarkers(seriesColor) },
      cursor: { show: false },
      scales: {
        x: { time: false },
        y: pctScale ? { range: [0, 100] } : { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] },
      },
      axes: [
        {
          ...axis,
          // Round steps (1, 2, 5, 10, 15, 30 s…) as many as fit, not uPlot's 2.5 s rounded to "3 s".
          splits: (u, _axis, min, max) => timeTicks(min, max, u.bbox.width / devicePixelRatio),
          values: (_u, ticks) => ticks.map(timeTickLabel),
        },
        { ...axis, size: 56 },
      ],
      series: [
        {},
        ...metrics.map((m, i) => ({ label: METRICS[m].label, stroke: seriesColor(i), width: 2, spanGaps: false })),
      ],
      hooks: {
        draw: [
          (u: uPlot) => {
            const ctx = u.ctx;
            ctx.save();
            ctx.setLineDash([6, 4]);
            ctx.strokeStyle = css('--bad', '#a3261b');
            ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
            ctx.textAlign = 'left'; // uPlot leaves the axis' alignment set
            ctx.textBaseline = 'top';
            const dpr = devicePixelRatio;
            const shown = thresholdsRef.current
              .map((t) => ({ t, y: Math.round(u.valToPos(t.value, 'y', true)) }))
              .filter(({ y }) => y >= u.bbox.top && y <= u.bbox.top + u.bbox.height);
            const heightPx = Math.round(15 * dpr);
            const spots = placeThresholdLabels(
              shown.map((s) => s.y),
              { plotTop: u.bbox.top, plotBottom: u.bbox.top + u.bbox.height },
              heightPx,
              Math.round(2 * dpr),
            );
            for (const { y } of shown) {
              ctx.beginPath();
              ctx.moveTo(u.bbox.left, y);
              ctx.lineTo(u.bbox.left + u.bbox.width, y);
              ctx.stroke();
            }
            // Labels on a backing of the page colour: a series line never runs through the text.
            shown.forEach(({ t }, i) => {
              const top = spots[i]!.top;
              const x = u.bbox.left + 4 * dpr;
              const w = ctx.measureText(t.label).width + 6 * dpr;
              ctx.fillStyle = css('--bg', '#fbfbf8');
              ctx.fillRect(x - 3 * dpr, top, w, heightPx);
              ctx.fillStyle = css('--fg', '#1b1d21');
              ctx.fillText(t.label, x, top + 2 * dpr);
            });
            ctx.restore();
          },
        ],
      },
    };
    const u = new uPlot(opts, [[], ...metrics.map(() => [])] as unknown as uPlot.AlignedData, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [metrics.join(','), pctScale]);

  useEffect(() => {
    const u = plot.current;
    const last = points[points.length - 1];
    if (!u || !last) return;
    const from = last.tMs - spanS * 1000;
    const shown = points.filter((p) => p.tMs >= from);
    const t0 = shown[0]?.tMs ?? last.tMs;
    const xs = shown.map((p) => (p.tMs - t0) / 1000);
    const ys = metrics.map((m) => shown.map((p) => p.values[m]));
    u.setData([xs, ...ys] as unknown as uPlot.AlignedData);
  }, [points, points.length, metrics, spanS]);

  const text = metrics.map((m) => summary(points, m)).join('; ');
  return (
    <figure className="lab-chart">
      <div className="lab-chart-unit" aria-hidden="true" data-testid="chart-unit">
        {axisUnit(metrics)}
      </div>
      <div ref={box} className="lab-chart-plot" aria-hidden="true" />
      <figcaption>
        <strong>{title}</strong>
        {thresholds.length > 0 && <span className="muted"> · lines: {thresholds.map((t) => t.label).join('; ')}</span>}
        <span className="lab-chart-summary"> Last 10 s: {points.length ? text : 'no samples yet'}.</span>
      </figcaption>
    </figure>
  );
}
