/**
 * The rules path on VictoriaMetrics reads the hosts' CPU from the rules, as on Prometheus. VictoriaMetrics keeps a
 * series' name through `avg_over_time` (Prometheus drops it), and the audit once told the rules' busiest-core series
 * from node-exporter's gauges by that name: on VictoriaMetrics it found no busiest core, fell back to reading every
 * core's raw counter over the whole window, and where that history is gone (a shorter retention for node-exporter,
 * or rules over history backfilled for the GPUs only) called every starved hour "can't tell".
 *
 * The independent cluster (test/fleet/independent/), 64 GPUs over 24 h, written as the rules hold it with raw
 * scrapes only for the last 7 minutes (rules-import.ts, as bench/fleet-week.ts writes 10,000 GPUs over a week).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { INDEPENDENT_END_S, SCRAPE_S } from './independent/cluster.ts';
import { planCluster, type PlannedHost } from './independent/plan.ts';
import { importThroughRules } from './independent/rules-import.ts';
import { scoreReport } from './independent/score.ts';
import { PROMETHEUS_TEST_LIMITS, recordingFetch, startEngine, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const WINDOW_S = 86_400;
const START_S = INDEPENDENT_END_S - WINDOW_S;
let vm: RunningPrometheus;
let dir: string;
let hosts: PlannedHost[];
let report: AuditReport;
/** Each range query's expression, the seconds it spans and its step. */
const ranges: { expr: string; spanS: number; stepS: number }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-vm-hosts-'));
  vm = await startEngine('victoria-metrics', {});
  hosts = planCluster(64, WINDOW_S);
  await importThroughRules(vm.url, hosts, START_S, INDEPENDENT_END_S, SCRAPE_S, dir);
  const r = recordingFetch();
  report = await audit(createPrometheusClient({ url: vm.url, fetchImpl: r.fetchImpl }), {
    windowS: WINDOW_S,
    endS: INDEPENDENT_END_S,
    pricePerGpuHour: null,
  });
  for (const q of r.sent)
    if (q.path.endsWith('/query_range'))
      ranges.push({
        expr: q.form.get('query') ?? '',
        spanS: Number(q.form.get('end')) - Number(q.form.get('start')),
        stepS: Number(q.form.get('step')),
      });
});

afterAll(async () => {
  await vm?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('starved hours come out right from the rules, with no raw CPU history', () => {
  expect(report.window.path).toBe('recording-rules');
  const starved = scoreReport(report, hosts, WINDOW_S).hours.find((h) => h.kind === 'data-starvation')!;
  expect(starved.truthH).toBeGreaterThan(0);
  expect(Math.abs(starved.error)).toBeLessThan(0.05);
});

test("only the live view reads node-exporter's per-core counters", () => {
  const perCore = ranges.filter((r) => r.expr.includes('node_cpu_seconds_total'));
  expect(perCore.length).toBeGreaterThan(0);
  for (const r of perCore) expect(r.spanS).toBeLessThanOrEqual(300);
});

test('the live view reads each 30 s scrape once, not each twice at its 15 s step', () => {
  const live = ranges.filter((r) => r.expr.includes('DCGM_FI_DEV_GPU_UTIL') && r.spanS === report.window.liveS);
  expect(live.length).toBeGreaterThan(0);
  // The scrape interval (a divisor of the 300 s under 300 s over the samples counted, 10 or 11): each scrape read
  // once, the last point at the audit's end.
  for (const r of live) expect(r.stepS).toBeGreaterThanOrEqual(25);
  for (const r of live) expect(r.stepS).toBeLessThanOrEqual(SCRAPE_S);
  for (const r of live) expect(r.spanS % r.stepS).toBe(0);
  const score = scoreReport(report, hosts, WINDOW_S);
  expect(score.rightShare).toBeGreaterThanOrEqual(0.95);
  expect(score.confidentlyWrong).toEqual([]);
});
