/**
 * The window is counted whole (server/fleet/segments.ts): segments laid from its end back to its start add up to
 * it, the oldest taking what the division leaves, so every GPU that reported all along has the window's hours.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { audit } from '../../server/fleet/audit.ts';
import { MAX_SEGMENTS, reasonStepMs, segmentPlan } from '../../server/fleet/segments.ts';
import type { PrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { BUSY, fakeClient, fakeGpu, IDLE } from './hostile-prometheus.ts';

const SCRAPE_S = 15;

describe('segmentPlan', () => {
  test('segments add up to the window to the millisecond, at most MAX_SEGMENTS, each at least four scrapes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 90 * 86_400 }), fc.constantFrom(1, 5, 10, 15, 30), (windowS, scrapeS) => {
        const p = segmentPlan(windowS, scrapeS);
        expect((p.count - 1) * p.segmentMs + p.oldestMs).toBe(windowS * 1000);
        expect(p.count).toBeLessThanOrEqual(MAX_SEGMENTS);
        expect(p.oldestMs - p.segmentMs).toBeLessThan(p.count);
        if (windowS >= scrapeS * 4) expect(p.segmentMs).toBeGreaterThanOrEqual(scrapeS * 4000 - p.count);
      }),
    );
  });

  test('the step grows with the window', () => {
    const steps = [3600, 86_400, 7 * 86_400].map((w) => segmentPlan(w, SCRAPE_S).segmentMs);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(segmentPlan(7 * 86_400, SCRAPE_S).segmentMs).toBe(21_600_000);
  });
});

describe('every minute of the window is counted', () => {
  test.each(['1m', '170s', '1h', '3601s', '24h', '7d'])(
    'a GPU that reported all along has the whole %s in its hours (within one scrape)',
    async (w) => {
      const windowS = { '1m': 60, '170s': 170, '1h': 3600, '3601s': 3601, '24h': 86_400, '7d': 604_800 }[w]!;
      const r = await audit(fakeClient([fakeGpu(0, BUSY), fakeGpu(1, IDLE)]), {
        windowS,
        endS: 1_800_000_000,
        pricePerGpuHour: null,
      });
      for (const g of r.gpus) {
        const byState = Object.values(g.hours).reduce((a, b) => a + b, 0);
        expect(Math.abs(byState * 3600 - windowS)).toBeLessThanOrEqual(SCRAPE_S);
        expect(Math.abs(g.reportedHours * 3600 - windowS)).toBeLessThanOrEqual(SCRAPE_S);
      }
    },
  );
});

describe('the raw window query at a week', () => {
  test('a 7-day window reads the clock event mask every 3 minutes, not at every 15 s scrape; 24 h at its scrapes', async () => {
    const exprs: string[] = [];
    const base = fakeClient([fakeGpu(0, BUSY), fakeGpu(1, IDLE)]);
    const client = Object.assign(Object.create(base) as PrometheusClient, {
      async queryRange(expr: string, startS: number, endS: number, stepS: number) {
        exprs.push(expr);
        return base.queryRange(expr, startS, endS, stepS);
      },
    });
    await audit(client, { windowS: 7 * 86_400, endS: 1_800_000_000, pricePerGpuHour: null, recordingRules: false });
    const steps = exprs.flatMap((e) => [...e.matchAll(/\[\d+ms:(\d+)ms\]/g)].map((m) => Number(m[1])));
    expect(steps.length).toBeGreaterThan(0);
    expect(Math.min(...steps)).toBe(180_000);
    expect(reasonStepMs(segmentPlan(86_400, SCRAPE_S), SCRAPE_S)).toBeLessThan(30_000);
  });
});
