/**
 * Issue 26, finding 7: VictoriaMetrics gives the report Prometheus gives. The same cluster is loaded into both and
 * audited; every verdict, every GPU's hours and the data span must match. Scrapes are 7 ms past the second, as real
 * scrapes fall: where a scrape sits exactly on a segment's edge, Prometheus 2.x counts it in both segments (its
 * ranges include their start) and VictoriaMetrics in one (as Prometheus 3 does), a difference of one scrape that
 * synthetic data on whole seconds would hit at every edge and real data almost never.
 *
 * Backfilled data has no staleness markers, so an exporter that stopped less than 5 minutes before the end looks
 * alive to Prometheus (its last sample repeated for --query.lookback-delta) and stopped to VictoriaMetrics (a few
 * scrape intervals). A Prometheus that scrapes marks the series stale at the first failed scrape, so live data reads
 * the same on both; the host here stopped 15 minutes before the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { scenarioCluster, writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import { startEngine, FLEET_ENGINES, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const SCRAPE_MS = 15_000;
const HOSTS: SimHost[] = [
  ...scenarioCluster(),
  { hostname: 'old-exporter', phases: [{ fromMs: 0, scenario: 'throttled' }], exporter3x: true },
  // Its exporter stopped 15 minutes ago: in the 1 h window, not in the 10-minute one.
  { hostname: 'went-quiet', phases: [{ fromMs: 0, scenario: 'memory-bound' }], untilMs: END_MS - 900_000 },
];
const reports = new Map<string, AuditReport[]>();
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-agree-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - 2 * 3_600_000 + 7, END_MS, SCRAPE_MS);
  for (const engine of FLEET_ENGINES) {
    const e = await startEngine(engine, { openMetricsFile: file });
    try {
      const client = createPrometheusClient({ url: e.url });
      const run = (windowS: number) => audit(client, { windowS, endS: END_MS / 1000, pricePerGpuHour: null });
      reports.set(engine, [await run(3600), await run(600)]);
    } finally {
      await e.stop();
    }
  }
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A report without what legitimately differs: the engine's address, and energy (compared on its own). */
const comparable = (r: AuditReport) =>
  r.gpus.map((g) => ({ key: `${g.hostname}/${g.gpu}`, verdict: g.verdict, hours: g.hours, reported: g.reportedHours }));

describe.each([
  [0, '1 h'],
  [1, '10 min'],
])('Prometheus and VictoriaMetrics, window %i (%s)', (i) => {
  test('every GPU has the same verdict and the same hours in each state', () => {
    const [prom, vm] = FLEET_ENGINES.map((e) => reports.get(e)![i]!);
    expect(prom!.gpus).toHaveLength((HOSTS.length - i) * 8); // the quiet host is not in the 10-minute window
    expect(comparable(vm!)).toEqual(comparable(prom!));
  });

  test('the same data span; energy within one scrape of the window (VictoriaMetrics’ increase() does not extrapolate)', () => {
    const [prom, vm] = FLEET_ENGINES.map((e) => reports.get(e)![i]!);
    expect(vm!.dataSpanS).toBe(prom!.dataSpanS);
    const windowS = prom!.window.seconds;
    for (const [j, g] of prom!.gpus.entries()) {
      const other = vm!.gpus[j]!.energyKWh;
      if (g.energyKWh === null) expect(other).toBeNull();
      else expect(Math.abs(other! - g.energyKWh) / g.energyKWh).toBeLessThanOrEqual((1.5 * SCRAPE_MS) / 1000 / windowS);
    }
  });
});
