/**
 * Raw-series queries in batches of hosts (server/fleet/batches.ts): no query holds the whole fleet, every GPU is
 * read once, an engine without the label values API is read as before, and a long audit says how far it got.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT, PROGRESS_AFTER_MS, runAudit } from '../../scripts/audit.ts';
import { audit } from '../../server/fleet/audit.ts';
import { batchesOf, HOSTS_PER_QUERY } from '../../server/fleet/batches.ts';
import { PrometheusError, type PrometheusClient } from '../../server/fleet/prometheus-api.ts';
import {
  BUSY,
  fakeClient,
  fakeGpu,
  IDLE,
  startHostilePrometheus,
  type HostilePrometheus,
} from './hostile-prometheus.ts';

/** The regex a batch matcher holds, as Prometheus reads it (PromQL string unescaped, anchored). */
const regexOf = (matcher: string) =>
  new RegExp(`^(?:${/^instance=~"(.*)"$/.exec(matcher)![1]!.replace(/\\(.)/g, '$1')})$`);

/** A fleet of `n` hosts, one GPU each, every third idle. */
const fleet = (n: number) => Array.from({ length: n }, (_, i) => fakeGpu(i, i % 3 ? BUSY : IDLE));

/** fakeClient, recording the hosts each range query answered for. */
function spied(client: PrometheusClient): PrometheusClient & { hostsPerQuery: number[] } {
  const hostsPerQuery: number[] = [];
  return Object.assign(Object.create(client) as PrometheusClient, {
    hostsPerQuery,
    async queryRange(expr: string, startS: number, endS: number, stepS: number) {
      const r = await client.queryRange(expr, startS, endS, stepS);
      if (expr.includes('DCGM_')) hostsPerQuery.push(new Set(r.map((s) => s.labels['instance'])).size);
      return r;
    },
  });
}

describe('batchesOf', () => {
  test('each host is in exactly one batch of at most HOSTS_PER_QUERY, dots and odd characters matched literally', () => {
    const targets = [
      ...Array.from({ length: 2 * HOSTS_PER_QUERY + 7 }, (_, i) => `10.0.0.${i}:9400`),
      'gpu-a.example:9400',
      'we|ird"host\\x:1',
    ];
    const batches = batchesOf(targets);
    expect(batches).toHaveLength(3);
    for (const t of targets) expect(batches.filter((b) => regexOf(b).test(t))).toHaveLength(1);
    expect(batches.some((b) => regexOf(b).test('10.0.0.1x9400'))).toBe(false); // the dot is a dot
    expect(batches.filter((b) => regexOf(b).test(''))).toHaveLength(1); // series without an instance: the first batch
  });

  test('no list (an engine without label values): one batch of every series', () => {
    expect(batchesOf(null)).toEqual(['']);
  });
});

describe('an audit in batches', () => {
  const END = 1_800_000_000;
  test('no raw-series query holds more than HOSTS_PER_QUERY hosts, and every GPU is reported once', async () => {
    const gpus = fleet(2 * HOSTS_PER_QUERY + 20);
    const client = spied(fakeClient(gpus));
    const r = await audit(client, { windowS: 3600, endS: END, pricePerGpuHour: null });
    expect(r.gpus).toHaveLength(gpus.length);
    expect(new Set(r.gpus.map((g) => g.key)).size).toBe(gpus.length);
    expect(client.hostsPerQuery.length).toBeGreaterThanOrEqual(6); // 3 batches for the live view, 3 for the window
    expect(Math.max(...client.hostsPerQuery)).toBeLessThanOrEqual(HOSTS_PER_QUERY);
  });

  test('the same report as one query would give, on an engine without the label values API', async () => {
    const gpus = fleet(HOSTS_PER_QUERY + 5);
    const noLabels = Object.assign(Object.create(fakeClient(gpus)) as PrometheusClient, {
      labelValues: () => Promise.reject(new PrometheusError('refused', 'Prometheus at x said: HTTP 404')),
    });
    const kinds = async (c: PrometheusClient) =>
      (await audit(c, { windowS: 3600, endS: END, pricePerGpuHour: null })).gpus.map((g) => [
        g.key,
        g.verdict.kind,
        g.hours,
      ]);
    expect(await kinds(fakeClient(gpus))).toEqual(await kinds(noLabels));
  });
});

describe('progress on stderr', () => {
  let fake: HostilePrometheus;
  beforeAll(async () => {
    fake = await startHostilePrometheus();
    fake.mode = 'fleet';
    fake.gpus = fleet(2 * HOSTS_PER_QUERY + 1);
  });
  afterAll(() => fake?.close());

  const run = async (isTTY: boolean, now: () => number) => {
    let err = '';
    const code = await runAudit(
      ['--prometheus', fake.url, '--window', '1h', '--json'],
      () => undefined,
      (s) => (err += s),
      now,
      isTTY,
    );
    expect(code, err).toBe(EXIT.ok);
    return err.split('\n').filter((l) => / batch \d+ of \d+ /.test(l));
  };

  test('on a terminal: one line per batch of hosts', async () => {
    const lines = await run(true, Date.now);
    expect(lines.filter((l) => l.startsWith('audit: live view: batch '))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('audit: window: batch '))).toHaveLength(3);
    expect(lines.some((l) => /^audit: window: batch 3 of 3 of hosts read \(\d+ s\)$/.test(l))).toBe(true);
  });

  test('in a log: nothing for a quick audit, the lines once it runs past a few seconds', async () => {
    expect(await run(false, () => 1_800_000_000_000)).toEqual([]);
    let t = 1_800_000_000_000;
    const slow = () => (t += PROGRESS_AFTER_MS); // every look at the clock finds it a few seconds later
    expect((await run(false, slow)).length).toBe(6);
  });
});

describe('node-exporter in batches', () => {
  test("the hosts' per-core CPU is read HOSTS_PER_QUERY hosts at a time, like the GPUs", async () => {
    const gpus = fleet(2 * HOSTS_PER_QUERY + 20);
    const cpuQueries: string[] = [];
    const base = fakeClient(gpus);
    const client = Object.assign(Object.create(base) as PrometheusClient, {
      async queryRange(expr: string, startS: number, endS: number, stepS: number) {
        if (expr.includes('node_cpu_seconds_total')) cpuQueries.push(expr);
        return base.queryRange(expr, startS, endS, stepS);
      },
    });
    await audit(client, { windowS: 3600, endS: 1_800_000_000, pricePerGpuHour: null });
    expect(cpuQueries.length).toBe(6); // 3 batches for the live view, 3 for the window
    for (const q of cpuQueries) {
      const hosts = /instance=~"([^"]*)"/.exec(q)?.[1]?.split('|').filter(Boolean) ?? [];
      expect(hosts.length, q).toBeGreaterThan(0);
      expect(hosts.length).toBeLessThanOrEqual(HOSTS_PER_QUERY);
    }
  });
});
