/**
 * Recording rules from an older deploy/prometheus/saturate-rules.yml, against the real Prometheus: that file recorded
 * each clock event reason as a share among the 1-minute means (`saturate:dcgm:avg1m{saturate_series="reason:…"}`),
 * where the audit now reads reason and mask minutes. Read as they are now, those rules have no mask minutes, so every
 * throttled GPU would look as if it did not export its reasons. A platform team that upgrades Saturate before it
 * redeploys the rules file gets the window read from raw series (the right hours) and a report that says why.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit } from '../../server/fleet/audit.ts';
import { createPrometheusClient, type PrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { pathText } from '../../server/fleet/report.ts';
import type { SimHost } from './cluster.ts';
import { prometheusWithRules, PROMETHEUS_TEST_LIMITS, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const HOUR = 3600;
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
const HOSTS: SimHost[] = [
  { hostname: 'throttled', phases: [{ fromMs: 0, scenario: 'throttled' }] },
  { hostname: 'computing', phases: [{ fromMs: 0, scenario: 'compute-bound' }] },
];
/** One reason as the rules file recorded it before reasons had minutes of their own (SW thermal slowdown, 0x20). */
const OLD_REASON_RULE = `groups:
  - name: saturate-before-reason-minutes
    interval: 1m
    rules:
      - record: saturate:dcgm:avg1m
        expr: "avg_over_time((((DCGM_FI_DEV_CLOCKS_EVENT_REASONS or DCGM_FI_DEV_CLOCK_THROTTLE_REASONS) < 2147483632) % 64 >= bool 32)[1m:10s])"
        labels:
          saturate_series: "reason:SwThermalSlowdown"
`;
let prom: RunningPrometheus;
let client: PrometheusClient;

beforeAll(async () => {
  prom = await prometheusWithRules({
    hosts: HOSTS,
    fromS: END_S - 3 * HOUR,
    endS: END_S,
    rulesFromS: END_S - 3 * HOUR,
    moreRules: [OLD_REASON_RULE],
  });
  client = createPrometheusClient({ url: prom.url });
}, 600_000);

afterAll(async () => {
  await prom?.stop();
});

describe('recording rules from an older rules file', () => {
  test('the window is read from raw series, the throttled hours are right, and the report names the old rules', async () => {
    const run = (recordingRules: boolean) =>
      audit(client, { windowS: 3 * HOUR, endS: END_S, pricePerGpuHour: null, recordingRules });
    const [withRules, raw] = [await run(true), await run(false)];
    expect(withRules.window.path).toBe('raw');
    expect(withRules.window.rulesOutdated).toBe(true);
    expect(raw.window.rulesOutdated).toBe(false);
    const hours = (r: typeof raw, host: string) =>
      r.gpus.filter((g) => g.hostname === host).reduce((a, g) => a + (g.hours['throttled'] ?? 0), 0);
    // 8 GPUs × 3 h, throttled throughout: counted as throttled, not as computing with reasons "not exported".
    expect(hours(withRules, 'throttled')).toBeCloseTo(24, 3);
    expect(hours(withRules, 'throttled')).toBeCloseTo(hours(raw, 'throttled'), 6);
    expect(pathText(withRules.window)).toMatch(
      /older deploy\/prometheus\/saturate-rules\.yml.*Deploy the current file/,
    );
  });
});
