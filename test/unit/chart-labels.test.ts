import { describe, expect, test } from 'vitest';
import {
  axisUnit,
  lineLegendMarkers,
  placeThresholdLabels,
  timeTickLabel,
  timeTicks,
} from '../../src/lib/chart-labels.ts';

describe('axisUnit', () => {
  test('a throughput chart says per second of what', () => {
    expect(axisUnit(['samplesPerSec'])).toBe('samples/s');
    expect(axisUnit(['tokensPerSec'])).toBe('tokens/s');
  });
  test('percent, watts and flags have their unit', () => {
    expect(axisUnit(['gpuUtilPct', 'maxCorePct'])).toBe('%');
    expect(axisUnit(['powerWatts'])).toBe('W');
    expect(axisUnit(['powerCapActive'])).toBe('share of time');
  });
});

describe('placeThresholdLabels', () => {
  const plot = { plotTop: 10, plotBottom: 190 };
  const h = 15;
  const crossesLine = (top: number, y: number) => top < y && top + h > y;

  test('a label sits above its line, never across it', () => {
    const [spot] = placeThresholdLabels([100], plot, h);
    expect(spot).toEqual({ top: 100 - 3 - h, above: true });
    expect(crossesLine(spot!.top, 100)).toBe(false);
  });

  test('a line near the top of the plot gets its label below it, inside the plot', () => {
    const [spot] = placeThresholdLabels([20], plot, h);
    expect(spot!.above).toBe(false);
    expect(spot!.top).toBeGreaterThanOrEqual(plot.plotTop);
    expect(crossesLine(spot!.top, 20)).toBe(false);
  });

  test('two close lines: the labels do not overlap each other or either line', () => {
    const ys = [60, 72];
    const spots = placeThresholdLabels(ys, plot, h);
    expect(Math.abs(spots[0]!.top - spots[1]!.top)).toBeGreaterThanOrEqual(h);
    for (const s of spots) for (const y of ys) expect(crossesLine(s.top, y)).toBe(false);
  });
});

describe('timeTicks', () => {
  /** The steps a reader takes as round (issue #28): 1, 2, 5, 10, 15, 30 s, then whole minutes. */
  const ROUND_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

  test('a lab chart’s first 8 s tick at whole seconds, never 0, 3, 5, 8 (2.5 s steps rounded)', () => {
    const labels = timeTicks(0, 8, 320).map(timeTickLabel);
    expect(labels).toEqual(['0 s', '2 s', '4 s', '6 s', '8 s']);
  });

  test('at every span and width the ticks fall on one round step, as many as fit 50 px apart', () => {
    for (const widthPx of [200, 280, 343, 600, 1000])
      for (const [min, max] of [
        [0, 0.5],
        [0, 3],
        [0, 8],
        [0, 37.5],
        [0, 119.5],
        [0, 120],
        [12.5, 600],
        [0, 3600],
      ] as const) {
        const ticks = timeTicks(min, max, widthPx);
        const at = `${min}–${max} s at ${widthPx} px: ${ticks.join(', ')}`;
        expect(ticks.length, at).toBeGreaterThanOrEqual(1);
        for (const t of ticks) expect(t >= min && t <= max, at).toBe(true);
        if (ticks.length < 2) continue;
        const step = ticks[1]! - ticks[0]!;
        expect(ROUND_S, at).toContain(step);
        for (const t of ticks) expect(t % step, at).toBe(0);
        expect((step / (max - min)) * widthPx, at).toBeGreaterThanOrEqual(50);
        const smaller = ROUND_S.filter((s) => s < step).at(-1);
        if (smaller) expect((smaller / (max - min)) * widthPx, at).toBeLessThan(50);
        expect(ticks.map(timeTickLabel), at).toEqual(ticks.map((t) => `${t} s`));
      }
  });
});

describe('lineLegendMarkers', () => {
  test('series swatches carry no outline box and are filled with their series’ colour', () => {
    const colors = ['#0b6b4f', '#b4531f'];
    const m = lineLegendMarkers((i) => colors[i]!);
    expect(m.width).toBe(0); // uPlot draws an outlined square when width > 0: it reads as a checkbox
    expect([1, 2].map((i) => m.fill(null, i))).toEqual(colors);
  });
});
