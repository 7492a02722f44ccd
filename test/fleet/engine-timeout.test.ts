/**
 * An engine that ends a query at its own time limit is a timeout (the audit's exit 4) that names the engine's flag,
 * not "Prometheus said: error when executing query=…" cut before the reason. VictoriaMetrics (Debian's real one)
 * answers HTTP 422 with the whole query first and the reason last; at its default (30 s) the raw audit of 512 GPUs
 * over 24 h ended so in bench/fleet-scale.ts. Any other limit of its own is said with its reason, not cut after the query.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { PrometheusError } from '../../server/fleet/prometheus-error.ts';
import { startEngine, PROMETHEUS_TEST_LIMITS, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
let vm: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-engine-timeout-'));
  // 2,000 series of a point a minute over 2 h. VictoriaMetrics checks its limit while it reads the data, not while it
  // computes (a 38 s rollup over a subquery of this data was answered whole under a 1 s limit), and at 1 s its read of
  // this data sometimes finished in time on a quiet machine. At 1 ms every read of data is past it.
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) for (let t = END_S - 7200; t < END_S; t += 60) lines.push(`m{i="${i}"} ${i} ${t}`);
  const file = join(dir, 'm.om');
  writeFileSync(file, `${lines.join('\n')}\n# EOF\n`);
  vm = await startEngine('victoria-metrics', {
    openMetricsFile: file,
    args: ['-search.maxQueryDuration=1ms', '-search.maxPointsPerTimeseries=10000'],
  });
});

afterAll(async () => {
  await vm?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('VictoriaMetrics ending a query at -search.maxQueryDuration is a timeout that names that flag and its limit', async () => {
  const client = createPrometheusClient({ url: vm.url, timeoutMs: 120_000 });
  const err = await client.queryRange('quantile_over_time(0.9, m[2h])', END_S - 7200, END_S, 1).catch((e) => e);
  expect(err).toBeInstanceOf(PrometheusError);
  expect((err as PrometheusError).kind).toBe('timeout');
  expect((err as PrometheusError).message).toMatch(
    /stopped query quantile_over_time\(0\.9, m\[2h\]\) at its own time limit \(0\.001 s, -search\.maxQueryDuration\); raise it .*recording rules/,
  );
});

test('any other limit VictoriaMetrics names after a long query is in the message: its reason and flag, not only the query', async () => {
  const client = createPrometheusClient({ url: vm.url, timeoutMs: 120_000 });
  // A batch's selector names its hosts: hundreds of characters of query before the engine's reason.
  const hosts = Array.from({ length: 150 }, (_, i) => i).join('|');
  const err = await client.queryRange(`avg_over_time(m{i=~"${hosts}"}[10m])`, END_S - 7200, END_S, 0.5).catch((e) => e);
  expect(err).toBeInstanceOf(PrometheusError);
  expect((err as PrometheusError).kind).toBe('refused');
  expect((err as PrometheusError).message).toMatch(
    /said: error when executing query=.* … .*too many points.*-search\.maxPointsPerTimeseries=10000/,
  );
});
