/**
 * `--prometheus` and `--source prometheus:` with a URL under a path, as Grafana Mimir serves its query API under
 * `/prometheus` and a reverse proxy serves Prometheus under its own: the engine here serves every path under
 * `/prometheus` (Prometheus's --web.route-prefix, VictoriaMetrics' -http.pathPrefix), on each engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runAudit, EXIT } from '../../scripts/audit.ts';
import { parseCli } from '../../server/cli.ts';
import { openPrometheusSource } from '../../server/fleet/source.ts';
import { scenarioCluster, writeClusterOpenMetrics, GPUS_PER_HOST } from './cluster.ts';
import { startPrometheus, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOSTS = scenarioCluster().slice(0, 2);
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-prefix-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - 3_600_000, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file, pathPrefix: '/prometheus' });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an engine served under /prometheus', () => {
  test('npm run audit --prometheus http://host:port/prometheus reads every GPU', async () => {
    expect(prom.url).toMatch(/\/prometheus$/);
    let out = '';
    let err = '';
    const code = await runAudit(
      ['--prometheus', prom.url, '--window', '1h', '--end', new Date(END_MS).toISOString(), '--json'],
      (s) => (out += s),
      (s) => (err += s),
    );
    expect(code, err).toBe(EXIT.ok);
    expect((JSON.parse(out) as { gpus: unknown[] }).gpus).toHaveLength(HOSTS.length * GPUS_PER_HOST);
  });

  test('the same URL with a trailing slash, and the lab server’s --source prometheus:<url>/prometheus/', async () => {
    const o = parseCli(['--source', `prometheus:${prom.url}/`]);
    const src = await openPrometheusSource({ url: o.source.slice('prometheus:'.length), now: () => END_MS });
    try {
      expect(src.devices()).toHaveLength(HOSTS.length * GPUS_PER_HOST);
    } finally {
      src.close();
    }
  });

  test('without the prefix the engine is not found, and the audit says where it looked', async () => {
    let err = '';
    const bare = prom.url.replace(/\/prometheus$/, '');
    const code = await runAudit(
      ['--prometheus', bare, '--window', '1h'],
      () => undefined,
      (s) => (err += s),
    );
    expect(code).not.toBe(EXIT.ok);
    expect(err).toContain(bare);
  });
});
