import { describe, expect, test } from 'vitest';
import { axisUnit, placeThresholdLabels } from '../../src/lib/chart-labels.ts';

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
