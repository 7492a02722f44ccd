/**
 * A batch of hosts with long names, against the real engine (Prometheus, and VictoriaMetrics in its project):
 * the window's segments query names the batch's hosts in each of its ~27 parts, and VictoriaMetrics refuses a query
 * over 16,384 bytes (`-search.maxQueryLen`, left at its default here). At 512 GPUs the query was 38,900 bytes and the
 * audit from raw series ended there (bench/fleet-scale.ts); now a long batch's query is sent as several.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { audit } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { MAX_QUERY_CHARS } from '../../server/fleet/segments.ts';
import { CLUSTER_CAUSES, GPUS_PER_HOST, writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import {
  PROMETHEUS_TEST_LIMITS,
  recordingFetch,
  startPrometheus,
  type RunningPrometheus,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOUR = 3_600_000;
/** Names as long as a cloud's: 12 of them in one batch make a selector of ~1,000 characters. */
const HOSTS: SimHost[] = Array.from({ length: 12 }, (_, i) => ({
  hostname: `gpu-node-${String(i).padStart(4, '0')}.us-east-2.compute.internal.training-cluster.example`,
  phases: [{ fromMs: 0, scenario: i % 2 ? 'idle' : 'compute-bound' }],
}));
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-long-query-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - HOUR, END_MS, 30_000);
  prom = await startPrometheus({ openMetricsFile: file });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a batch of long host names is read whole: every GPU with its hour, in queries under the engine limit', async () => {
  const r = recordingFetch();
  const client = createPrometheusClient({ url: prom.url, fetchImpl: r.fetchImpl });
  const report = await audit(client, { windowS: HOUR / 1000, endS: END_MS / 1000, pricePerGpuHour: null });
  const sent = r.sent.map((q) => q.form.get('query') ?? '');
  expect(report.gpus).toHaveLength(HOSTS.length * GPUS_PER_HOST);
  for (const g of report.gpus) expect(g.reportedHours, g.hostname).toBeCloseTo(1, 1);
  expect(report.summary.byKind[CLUSTER_CAUSES['idle']!] ?? 0).toBeCloseTo((HOSTS.length / 2) * GPUS_PER_HOST, 0);
  // One batch's window, all in one query, would be longer than VictoriaMetrics takes: it went as several.
  const window = sent.filter((q) => q.includes('saturate_series'));
  expect(window.reduce((a, q) => a + q.length, 0)).toBeGreaterThan(16_384);
  expect(window.length).toBeGreaterThan(1);
  for (const q of sent) expect(q.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
});
