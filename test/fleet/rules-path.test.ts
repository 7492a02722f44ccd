/**
 * The audit through the recording rules (server/fleet/rules/rules-path.ts), against the real Prometheus: the rules of
 * deploy/prometheus/saturate-rules.yml backfilled with promtool over the last 3 h of a 6 h simulated cluster (one host
 * per scenario, and one on dcgm-exporter 3.x). Read through the rules or through raw series, the same GPUs get the same states and hours; a window
 * the rules cover only in part is read both ways and counted whole; the report names the path it took.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { runAudit } from '../../scripts/audit.ts';
import { scenarioCluster, type SimHost } from './cluster.ts';
import { fiveMinuteRulesYaml } from '../../server/fleet/rules/recording-rules.ts';
import {
  prometheusWithRules,
  recordingFetch,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const HOUR = 3600;
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
/** One host per scenario, and a throttled host on dcgm-exporter 3.x (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, Hostname). */
const HOSTS: SimHost[] = [
  ...scenarioCluster(),
  { hostname: 'old-throttled', phases: [{ fromMs: 0, scenario: 'throttled' }], exporter3x: true },
];
let prom: RunningPrometheus;

beforeAll(async () => {
  // The rules began 3 h before the end: the first half of a 6 h window has raw series only. The 5-minute group reads
  // the 1-minute one: backfilled again once those are in Prometheus.
  prom = await prometheusWithRules({
    hosts: HOSTS,
    fromS: END_S - 6 * HOUR,
    endS: END_S,
    rulesFromS: END_S - 3 * HOUR,
    moreRules: [fiveMinuteRulesYaml()],
  });
}, 600_000);

afterAll(async () => {
  await prom?.stop();
});

/** The expressions of the queries the last `run` sent. */
let sent: string[] = [];

const run = async (windowS: number, recordingRules: boolean): Promise<AuditReport> => {
  const r = recordingFetch();
  sent = [];
  const report = await audit(createPrometheusClient({ url: prom.url, fetchImpl: r.fetchImpl }), {
    windowS,
    endS: END_S,
    pricePerGpuHour: null,
    recordingRules,
  });
  sent = r.sent.map((q) => q.form.get('query') ?? '');
  return report;
};

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

/** The last 3 h (all of it in the rules) read through the rules and raw, once for the tests that compare them. */
let threeHours: Promise<{ rules: AuditReport; rulesSent: string[]; raw: AuditReport; rawSent: string[] }> | undefined;
const bothWays = () =>
  (threeHours ??= (async () => {
    const rules = await run(3 * HOUR, true);
    const rulesSent = sent;
    const raw = await run(3 * HOUR, false);
    return { rules, rulesSent, raw, rawSent: sent };
  })());

describe('the window through the recording rules', () => {
  test('a window the rules cover is read from them, with the same verdicts and hours per state (within 5%) as raw', async () => {
    const { rules, raw } = await bothWays();
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

  test('a window the rules cover takes its energy and data span from them: no query reads every raw scrape of it', async () => {
    const { rules, rulesSent, raw, rawSent } = await bothWays();
    expect(rules.summary.energyFrom).toBe('power');
    expect(raw.summary.energyFrom).toBe('counter');
    expect(rulesSent.filter((q) => /DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION|timestamp\(/.test(q))).toEqual([]);
    expect(rawSent.filter((q) => /DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION/.test(q))).toHaveLength(1);
    // Each GPU's mean power over the window's segments within 1% of its energy counter's increase (test/fleet/cluster.ts
    // adds each scrape's power × 30 s to the counter).
    const counter = new Map(raw.gpus.map((g) => [g.key, g.energyKWh]));
    for (const g of rules.gpus) {
      const c = counter.get(g.key)!;
      expect(c, g.key).toBeGreaterThan(0);
      expect(Math.abs(g.energyKWh! - c) / c, `${g.key}: ${g.energyKWh} kWh vs ${c} kWh`).toBeLessThanOrEqual(0.01);
    }
    expect(Math.abs(rules.summary.energyKWh! - raw.summary.energyKWh!) / raw.summary.energyKWh!).toBeLessThan(0.01);
    // The data span to within one of the rules' minutes.
    expect(rules.dataSpanS).not.toBeNull();
    expect(Math.abs(rules.dataSpanS! - raw.dataSpanS!)).toBeLessThanOrEqual(60);
  });

  test('a long window reads the 5-minute rules where they hold it: the same verdicts and hours per state as raw', async () => {
    // 10 h: segments of 21 min 26 s; the data covers the last 6 h, the rules the last 3 h.
    const [coarse, raw] = [await run(10 * HOUR, true), await run(10 * HOUR, false)];
    expect(coarse.window.path).toBe('mixed');
    expect(coarse.window.rulesStepS).toBe(300);
    expect(sent.some((q) => q.includes('saturate:'))).toBe(false);
    expect(coarse.gpus.map((g) => [g.key, g.verdict.kind])).toEqual(raw.gpus.map((g) => [g.key, g.verdict.kind]));
    expect(mostly(coarse)).toEqual(mostly(raw));
    expectSameHours(coarse, raw);
    // The hung job's hours need its other GPUs; the starved host's need its CPU: both found through the 5-minute rules.
    const hoursOf = (host: string, kind: string) =>
      coarse.gpus.filter((g) => g.hostname === host).reduce((a, g) => a + (g.hours[kind as 'idle'] ?? 0), 0);
    expect(hoursOf('sim-nccl-hang', 'communication-hang')).toBeGreaterThanOrEqual(0.95 * 8 * 6);
    expect(hoursOf('sim-data-starved', 'data-starvation')).toBeGreaterThanOrEqual(0.95 * 8 * 6);
  });

  test('rules covering only the second half: "mixed", the whole window counted, the same hours as raw', async () => {
    const [mixed, raw] = [await run(6 * HOUR, true), await run(6 * HOUR, false)];
    expect(mixed.window.path).toBe('mixed');
    expect(Math.abs(mixed.window.rulesS - 3 * HOUR)).toBeLessThanOrEqual(mixed.window.segmentS);
    expect(mixed.window.rulesToS).toBe(END_S);
    for (const g of mixed.gpus) expect(g.reportedHours, g.key).toBeCloseTo(6, 3);
    expect(mostly(mixed)).toEqual(mostly(raw));
    expectSameHours(mixed, raw);
    // The rules do not reach the window's start: its energy and data span come from raw series, as on the raw path.
    expect(mixed.summary.energyFrom).toBe('counter');
    expect(mixed.summary.energyKWh).toBe(raw.summary.energyKWh);
    expect(mixed.dataSpanS).toBe(raw.dataSpanS);
  });

  test('the report names the path: Markdown and JSON', async () => {
    const report = async (args: string[], window = '6h') => {
      let out = '';
      const code = await runAudit(
        ['--prometheus', prom.url, '--window', window, '--end', new Date(END_S * 1000).toISOString(), ...args],
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
    // Energy says where it came from: the counter here (the rules hold half the window), mean power over 3 h.
    expect(await report([])).toContain('kWh (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION).');
    expect(await report([], '3h')).toMatch(/kWh \(mean DCGM_FI_DEV_POWER_USAGE from the recording rules × time/);
  });
});
