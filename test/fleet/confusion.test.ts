/**
 * The fleet's verdicts against known causes: one host per simulator scenario (8 GPUs each), backfilled into a
 * real Prometheus at dcgm-exporter's resolution, with node-exporter beside it. The verdict now and the hours
 * over the window must name the scenario's cause for at least 95% of GPUs (the matrix: `node bench/fleet.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { CLUSTER_CAUSES, scenarioCluster, writeClusterOpenMetrics } from './cluster.ts';
import { startPrometheus, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
let prom: RunningPrometheus;
let dir: string;
let report: AuditReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-confusion-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, scenarioCluster(), END_MS - 3_600_000, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
  report = await audit(createPrometheusClient({ url: prom.url }), {
    windowS: 3600,
    endS: END_MS / 1000,
    pricePerGpuHour: null,
  });
}, 180_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fleet verdicts against known causes', () => {
  test('every scenario is in the cluster, 8 GPUs each', () => {
    expect(report.gpus).toHaveLength(Object.keys(CLUSTER_CAUSES).length * 8);
  });

  test('the verdict now names the cause for ≥ 95% of GPUs, and none is wrong with high confidence', () => {
    const cause = (host: string) => CLUSTER_CAUSES[host.replace(/^sim-/, '')];
    const right = report.gpus.filter((g) => g.verdict.kind === cause(g.hostname));
    const confidentlyWrong = report.gpus.filter(
      (g) => g.verdict.kind !== cause(g.hostname) && g.verdict.kind !== 'cant-tell' && g.verdict.confidence === 'high',
    );
    expect(confidentlyWrong.map((g) => `${g.hostname}/${g.gpu}: ${g.verdict.kind}`)).toEqual([]);
    expect(right.length / report.gpus.length).toBeGreaterThanOrEqual(0.95);
  });

  test("≥ 95% of the window's GPU-hours are counted under the cause", () => {
    let right = 0;
    let all = 0;
    for (const g of report.gpus) {
      right += g.hours[CLUSTER_CAUSES[g.hostname.replace(/^sim-/, '')]!] ?? 0;
      all += g.reportedHours;
    }
    expect(right / all).toBeGreaterThanOrEqual(0.95);
  });
});
