/**
 * The independent cluster into a real Prometheus through its remote-write receiver (independent/remote-write.ts,
 * rules-remote-write.ts): how bench/fleet-week.ts fills Prometheus with 10,000 GPUs over a week, which promtool cannot
 * backfill here. First the protocol against Prometheus 2.42's own decoder (every length of snappy literal, labels with
 * spaces and non-ASCII, exact values and millisecond times, a refusal named); then 64 GPUs over 24 h written as the
 * rules hold them, audited on Prometheus as on VictoriaMetrics (the same points by the import), verdicts scored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { INDEPENDENT_END_S, SCRAPE_S } from './independent/cluster.ts';
import { planCluster, type PlannedHost } from './independent/plan.ts';
import { encodeLabels, remoteWrite, WriteRequest } from './independent/remote-write.ts';
import { engineThroughRules, textSeries } from './independent/rules-remote-write.ts';
import { clusterWriter } from './independent/write.ts';
import { scoreReport } from './independent/score.ts';
import { PROMETHEUS_TEST_LIMITS, startEngine, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const RECEIVER = { args: ['--web.enable-remote-write-receiver'] };

describe('remote write, as Prometheus 2.42 decodes it', () => {
  let prom: RunningPrometheus;
  beforeAll(async () => {
    prom = await startEngine('prometheus', RECEIVER);
  });
  afterAll(async () => {
    await prom?.stop();
  });

  /** What Prometheus answers for `expr` at `atS`, by the series' `i` label. */
  async function byI(expr: string, atS: number): Promise<Map<string, unknown>> {
    const res = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}&time=${atS}`);
    const body = (await res.json()) as {
      data: { result: { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[] };
    };
    return new Map(body.data.result.map((r) => [r.metric['i']!, r.values ?? r.value]));
  }

  test('labels, values and millisecond times come back exactly, at every length of snappy literal', async () => {
    const endS = INDEPENDENT_END_S - 7 * 86_400; // a week old: the head takes what is in order, however old
    // [series, samples each]: a message of at most 60 bytes (its length in the literal's tag), then ones whose length
    // takes 1, 2, 3 and 4 bytes after the tag.
    const shapes: [number, number][] = [
      [1, 1],
      [2, 2],
      [400, 2],
      [4_000, 2],
      [1, 1_000_000],
    ];
    const bands = [
      [1, 60],
      [61, 256],
      [257, 1 << 16],
      [(1 << 16) + 1, 1 << 24],
      [(1 << 24) + 1, 1 << 30],
    ];
    // A label value with spaces and one beyond ASCII, on the first series of each request but the smallest.
    const first = { __name__: 'rw_1', i: '0', model: 'NVIDIA H100 80GB HBM3', note: 'µs — ✓' };
    for (const [k, [series, each]] of shapes.entries()) {
      const req = new WriteRequest();
      const name = `rw_${k}`;
      const times = Array.from({ length: each }, (_, j) => endS * 1000 - (each - 1 - j));
      for (let i = 0; i < series; i++) {
        const values = Array.from({ length: each }, (_, j) => (j === 0 && each > 1 ? 1e15 + 0.5 : i - 0.125 + j / 3));
        req.add(
          encodeLabels(i === 0 && k > 0 ? { ...first, __name__: name } : { __name__: name, i: String(i) }),
          times,
          values,
          each,
        );
      }
      expect(req.size).toBeGreaterThanOrEqual(bands[k]![0]!);
      expect(req.size).toBeLessThanOrEqual(bands[k]![1]!);
      await remoteWrite(prom.url, req);
      const counts = await byI(`count_over_time(${name}[1h])`, endS);
      expect(counts.size).toBe(series);
      for (const [, v] of counts) expect((v as [number, string])[1]).toBe(String(each));
      const lastOf = await byI(name, endS);
      const i = series - 1;
      expect(lastOf.get(String(i))).toEqual([endS, String(i - 0.125 + (each - 1) / 3)]);
      if (each === 2) {
        const held = (await byI(`${name}[1h]`, endS)).get('0') as [number, string][];
        expect(held.map(([t, v]) => [Math.round(t * 1000), v])).toEqual([
          [endS * 1000 - 1, '1000000000000000.5'],
          [endS * 1000, String(-0.125 + 1 / 3)],
        ]);
      }
    }
    const labels = await fetch(`${prom.url}/api/v1/series?match[]=rw_1&start=0&end=${INDEPENDENT_END_S}`);
    const [series] = ((await labels.json()) as { data: Record<string, string>[] }).data;
    expect(series).toEqual(first);
  });

  test("a sample over an hour behind Prometheus's newest is refused, with Prometheus's reason", async () => {
    const nowMs = INDEPENDENT_END_S * 1000;
    const fresh = new WriteRequest();
    fresh.add(encodeLabels({ __name__: 'rw_order', i: '0' }), [nowMs], [1], 1);
    await remoteWrite(prom.url, fresh);
    const stale = new WriteRequest();
    stale.add(encodeLabels({ __name__: 'rw_order', i: '1' }), [nowMs - 3 * 3_600_000], [2], 1);
    await expect(remoteWrite(prom.url, stale)).rejects.toThrow(/refused the remote write: HTTP 400 .*out of bounds/);
  });
});

test("the raw scrapes' text reads back as whole series, however it is cut into chunks", () => {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-text-series-'));
  try {
    const hosts = planCluster(16, 3_600);
    const file = join(dir, 'raw.prom');
    const startS = INDEPENDENT_END_S - 3_600;
    const written = clusterWriter(hosts, startS, SCRAPE_S, { timestampsMs: true }).writeRange(
      file,
      startS,
      startS + 600,
    );
    const whole = [...textSeries(file)];
    // Chunks of a few lines, and of less than one line: a row and a series are cut anywhere.
    for (const chunk of [1_000, 97]) expect([...textSeries(file, chunk)]).toEqual(whole);
    expect(whole.reduce((a, s) => a + s.t.length, 0)).toBe(written);
    expect(new Set(whole.map((s) => JSON.stringify(s.labels))).size).toBe(whole.length);
    const util = whole.find((s) => s.labels['__name__'] === 'DCGM_FI_DEV_GPU_UTIL')!;
    expect(util.labels['modelName']).toMatch(/ /); // a label value with spaces
    expect(util.t).toEqual(Array.from({ length: 20 }, (_, i) => (startS + i * SCRAPE_S) * 1000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('64 GPUs over 24 h, written as the rules hold them', () => {
  const WINDOW_S = 86_400;
  const START_S = INDEPENDENT_END_S - WINDOW_S;
  let hosts: PlannedHost[];
  let dir: string;
  const reports = new Map<string, AuditReport>();
  const samples = new Map<string, number>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'saturate-remote-write-'));
    hosts = planCluster(64, WINDOW_S);
    for (const engine of ['prometheus', 'victoria-metrics'] as const) {
      const { running, ...written } = await engineThroughRules(
        engine,
        hosts,
        START_S,
        INDEPENDENT_END_S,
        SCRAPE_S,
        dir,
      );
      try {
        samples.set(engine, written.samples);
        const client = createPrometheusClient({ url: running.url });
        reports.set(engine, await audit(client, { windowS: WINDOW_S, endS: INDEPENDENT_END_S, pricePerGpuHour: null }));
      } finally {
        await running.stop();
      }
    }
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('Prometheus holds every rule point the import gives VictoriaMetrics, and the audit reads them as rules', () => {
    expect(samples.get('prometheus')).toBe(samples.get('victoria-metrics'));
    const prom = reports.get('prometheus')!;
    expect(prom.window.path).toBe('recording-rules');
    expect(prom.gpus).toHaveLength(64);
  });

  test("each GPU's hours per state are VictoriaMetrics' to the minute", () => {
    const vm = new Map(reports.get('victoria-metrics')!.gpus.map((g) => [g.key, g.hours]));
    for (const g of reports.get('prometheus')!.gpus) {
      const other = vm.get(g.key)!;
      for (const kind of new Set([...Object.keys(g.hours), ...Object.keys(other)]) as Set<keyof typeof other>)
        expect(Math.abs((g.hours[kind] ?? 0) - (other[kind] ?? 0)), `${g.key} ${kind}`).toBeLessThan(1 / 60);
    }
  });

  test('verdicts on Prometheus: at least 95% right, none wrong at high confidence, hours within 5%', () => {
    const score = scoreReport(reports.get('prometheus')!, hosts, WINDOW_S);
    expect(score.rightShare).toBeGreaterThanOrEqual(0.95);
    expect(score.confidentlyWrong).toEqual([]);
    for (const h of score.hours) if (h.truthH > 0) expect(Math.abs(h.error), h.kind).toBeLessThan(0.05);
  });
});
