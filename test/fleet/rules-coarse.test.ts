/**
 * A long window through the 5-minute recording rules (server/fleet/rules/rules-path.ts, FIVE_MINUTE_LEVEL), against
 * the real Prometheus: the aggregates of deploy/prometheus/saturate-rules.yml (1- and 5-minute) backfilled with
 * promtool over 10 h of a simulated cluster with a hung job, a straggler, a data-starved host, throttling and idle
 * GPUs. Segments of 21 minutes read the 5-minute means, and the engine still finds every state's hours, the hang's
 * (which needs the job's other GPUs) and the starvation's (which needs the host's CPU) included, as from raw series.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { aggregateRulesYaml } from '../../server/fleet/rules/recording-rules.ts';
import { pathText } from '../../server/fleet/report.ts';
import { scenarioCluster, writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import {
  backfillRules,
  startPrometheus,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const HOUR = 3600;
const WINDOW_S = 10 * HOUR;
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
const KEEP = ['sim-nccl-hang', 'sim-straggler', 'sim-data-starved', 'sim-throttled', 'sim-idle'];
const HOSTS: SimHost[] = scenarioCluster().filter((h) => KEEP.includes(h.hostname));
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-rules-coarse-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, (END_S - WINDOW_S) * 1000, END_S * 1000, 30_000);
  const rules = join(dir, 'rules.yml');
  writeFileSync(rules, aggregateRulesYaml());
  prom = await backfillRules(await startPrometheus({ openMetricsFile: file }), rules, END_S - WINDOW_S, END_S + 60);
}, 900_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = (recordingRules: boolean): Promise<AuditReport> =>
  audit(createPrometheusClient({ url: prom.url }), {
    windowS: WINDOW_S,
    endS: END_S,
    pricePerGpuHour: null,
    recordingRules,
  });

/** Each GPU's hours per state. */
const hoursOf = (r: AuditReport) => Object.fromEntries(r.gpus.map((g) => [g.key, g.hours]));

describe('a long window through the 5-minute recording rules', () => {
  test('reads the 5-minute rules, and finds the same verdicts and each GPU’s hours per state (within 5%) as raw', async () => {
    const [rules, raw] = [await run(true), await run(false)];
    expect(rules.window.path).toBe('recording-rules');
    expect(rules.window.rulesStepS).toBe(300);
    expect(pathText(rules.window)).toContain('saturate:dcgm:avg5m');
    expect(raw.window.path).toBe('raw');
    expect(rules.gpus).toHaveLength(HOSTS.length * 8);
    expect(rules.gpus.map((g) => [g.key, g.verdict.kind])).toEqual(raw.gpus.map((g) => [g.key, g.verdict.kind]));
    const [a, b] = [hoursOf(rules), hoursOf(raw)];
    for (const [key, hours] of Object.entries(b))
      for (const [kind, h] of Object.entries(hours))
        expect(Math.abs((a[key]?.[kind as keyof typeof hours] ?? 0) - h), `${key} ${kind}`).toBeLessThanOrEqual(
          Math.max(0.05 * h, 0.1),
        );
  });

  test('the hung job’s hours, which need its other GPUs, are found through the 5-minute rules', async () => {
    const rules = await run(true);
    const hung = rules.gpus.filter((g) => g.hostname === 'sim-nccl-hang');
    expect(hung).toHaveLength(8);
    const hangHours = hung.reduce((s, g) => s + (g.hours['communication-hang'] ?? 0), 0);
    // 8 GPUs over the whole 10 h window, within 5%.
    expect(hangHours).toBeGreaterThanOrEqual(0.95 * 8 * 10);
    const starved = rules.gpus.filter((g) => g.hostname === 'sim-data-starved');
    expect(starved.reduce((s, g) => s + (g.hours['data-starvation'] ?? 0), 0)).toBeGreaterThanOrEqual(0.95 * 8 * 10);
  });
});
