/**
 * The audit through the recording rules (server/fleet/rules/rules-path.ts), against the real Prometheus: the rules of
 * deploy/prometheus/saturate-rules.yml backfilled with promtool over the last 3 h of a 6 h simulated cluster (one host
 * per scenario, and one on dcgm-exporter 3.x). Read through the rules or through raw series, the same GPUs get the same states and hours; a window
 * the rules cover only in part is read both ways and counted whole; the report names the path it took.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { runAudit } from '../../scripts/audit.ts';
import { scenarioCluster, writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import {
  backfillRules,
  startPrometheus,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const HOUR = 3600;
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
const RULES = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus', 'saturate-rules.yml');
/** One host per scenario, and a throttled host on dcgm-exporter 3.x (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, Hostname). */
const HOSTS: SimHost[] = [
  ...scenarioCluster(),
  { hostname: 'old-throttled', phases: [{ fromMs: 0, scenario: 'throttled' }], exporter3x: true },
];
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-rules-path-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, (END_S - 6 * HOUR) * 1000, END_S * 1000, 30_000);
  // The rules began 3 h before the end: the first half of a 6 h window has raw series only.
  prom = await backfillRules(await startPrometheus({ openMetricsFile: file }), RULES, END_S - 3 * HOUR, END_S + 60);
}, 600_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = (windowS: number, recordingRules: boolean): Promise<AuditReport> =>
  audit(createPrometheusClient({ url: prom.url }), { windowS, endS: END_S, pricePerGpuHour: null, recordingRules });

/** Each state's GPU-hours from `a` within 5% of `b`'s (of the state's own hours, or of a GPU-hour for a sliver). */
function expectSameHours(a: AuditReport, b: AuditReport): void {
  const kinds = new Set([...Object.keys(a.summary.byKind), ...Object.keys(b.summary.byKind)]);
  for (const k of kinds) {
    const x = a.summary.byKind[k as keyof typeof a.summary.byKind] ?? 0;
    const y = b.summary.byKind[k as keyof typeof b.summary.byKind] ?? 0;
    expect(Math.abs(x - y), `${k}: ${x.toFixed(2)} h vs ${y.toFixed(2)} h`).toBeLessThanOrEqual(Math.max(0.05 * y, 1));
  }
}

/** The state each GPU spent most of the window in. */
const mostly = (r: AuditReport) =>
  Object.fromEntries(
    r.gpus.map((g) => [g.key, Object.entries(g.hours).reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0])[0]]),
  );

describe('the window through the recording rules', () => {
  test('a window the rules cover is read from them, with the same verdicts and hours per state (within 5%) as raw', async () => {
    const [rules, raw] = [await run(3 * HOUR, true), await run(3 * HOUR, false)];
    expect(rules.window.path).toBe('recording-rules');
    expect(raw.window.path).toBe('raw');
    expect(rules.gpus).toHaveLength(HOSTS.length * 8);
    // dcgm-exporter 3.x: its mask under the old name and its host as Hostname, read through the rules.
    const old = rules.gpus.filter((g) => g.hostname === 'old-throttled');
    expect(old).toHaveLength(8);
    for (const g of old) expect(Object.keys(g.hours)).toEqual(['throttled']);
    expect(rules.gpus.map((g) => [g.key, g.verdict.kind])).toEqual(raw.gpus.map((g) => [g.key, g.verdict.kind]));
    expect(mostly(rules)).toEqual(mostly(raw));
    expectSameHours(rules, raw);
    expect(rules.summary.gpuHours).toBeCloseTo(raw.summary.gpuHours, 3);
  });

  test('rules covering only the second half: "mixed", the whole window counted, the same hours as raw', async () => {
    const [mixed, raw] = [await run(6 * HOUR, true), await run(6 * HOUR, false)];
    expect(mixed.window.path).toBe('mixed');
    expect(Math.abs(mixed.window.rulesS - 3 * HOUR)).toBeLessThanOrEqual(mixed.window.segmentS);
    expect(mixed.window.rulesToS).toBe(END_S);
    for (const g of mixed.gpus) expect(g.reportedHours, g.key).toBeCloseTo(6, 3);
    expect(mostly(mixed)).toEqual(mostly(raw));
    expectSameHours(mixed, raw);
  });

  test('the report names the path: Markdown and JSON', async () => {
    const report = async (args: string[]) => {
      let out = '';
      const code = await runAudit(
        ['--prometheus', prom.url, '--window', '6h', '--end', new Date(END_S * 1000).toISOString(), ...args],
        (s) => (out += s),
        () => undefined,
      );
      expect(code).toBe(0);
      return out;
    };
    expect(await report([])).toMatch(
      /Window read from the recording rules for 3\.0 h \(2026-11-30T09:00:0\dZ to 2026-11-30T12:00:00Z\) and from raw series for the other 3\.0 h, where the rules hold no data \(path: mixed\)\./,
    );
    const json = JSON.parse(await report(['--json'])) as { window: { path: string; rulesS: number } };
    expect(json.window.path).toBe('mixed');
    expect(json.window.rulesS).toBeGreaterThan(3 * HOUR - 13 * 60);
    expect(await report(['--raw-series'])).toContain('Window read from raw series (path: raw)');
  });
});
