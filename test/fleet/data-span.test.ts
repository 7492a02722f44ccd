/**
 * A Prometheus that began scraping minutes ago, as a newcomer's first `/fleet/` meets it: the report says how much
 * data there is, the newest minutes count in any window, and simulated GPUs say so from their `simulated` label.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runAudit } from '../../scripts/audit.ts';
import { writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import {
  hasPrometheus,
  startPrometheus,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const END = new Date(END_MS).toISOString();
const DATA_S = 180;

const HOSTS: SimHost[] = [
  { hostname: 'sim-a', phases: [{ fromMs: 0, scenario: 'data-starved' }], labels: { simulated: 'true' } },
  { hostname: 'real-b', phases: [{ fromMs: 0, scenario: 'compute-bound' }] },
  // dcgm-exporter 3.x: the clock event mask as DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, the host as Hostname.
  { hostname: 'old-c', phases: [{ fromMs: 0, scenario: 'throttled' }], exporter3x: true },
];

interface ReportJson {
  dataSpanS: number;
  gpus: { hostname: string; simulated: boolean; hours: Record<string, number>; verdict: { kind: string } }[];
  summary: { gpuHours: number };
}

let prom: RunningPrometheus;
let dir: string;

async function report(window: string): Promise<ReportJson> {
  let out = '';
  const code = await runAudit(
    ['--prometheus', prom.url, '--window', window, '--end', END, '--json'],
    (s) => (out += s),
    () => undefined,
  );
  expect(code).toBe(0);
  return JSON.parse(out) as ReportJson;
}

beforeAll(async () => {
  if (!hasPrometheus()) throw new Error('these tests run the real Prometheus: apt-get install prometheus');
  dir = mkdtempSync(join(tmpdir(), 'saturate-span-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - DATA_S * 1000, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a fleet with three minutes of data', () => {
  test('the report says how much data Prometheus holds (to a scrape in a 1 h window)', async () => {
    const r = await report('1h');
    expect(r.dataSpanS).toBeGreaterThanOrEqual(DATA_S - 15);
    expect(r.dataSpanS).toBeLessThanOrEqual(DATA_S + 15);
  });

  test('the newest minutes count in a 24 h window: GPU-hours are not zero', async () => {
    const r = await report('24h');
    expect(r.summary.gpuHours).toBeGreaterThan(0);
    expect(r.dataSpanS).toBeLessThan(3600); // far too little for a day: the page picks a shorter window
  });

  test('hours per state add up to the window (within one scrape) when data fills it, for every GPU', async () => {
    // 170 s in segments of at least a minute: two of 85 s (whole minutes left 50 s of it uncounted).
    const r = await report('170s');
    expect(r.gpus).toHaveLength(HOSTS.length * 8);
    for (const g of r.gpus) {
      const seconds = Object.values(g.hours).reduce((a, b) => a + b, 0) * 3600;
      expect(Math.abs(seconds - 170), g.hostname).toBeLessThanOrEqual(15);
    }
  });

  test('GPUs whose series carry simulated="true" are marked simulated, the others not', async () => {
    const r = await report('1h');
    const sim = new Set(r.gpus.filter((g) => g.simulated).map((g) => g.hostname));
    const real = new Set(r.gpus.filter((g) => !g.simulated).map((g) => g.hostname));
    expect([...sim]).toEqual(['sim-a']);
    expect([...real].sort()).toEqual(['old-c', 'real-b']);
  });

  test('a dcgm-exporter 3.x host (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, Hostname) is read: throttled now and in its hours', async () => {
    const old = (await report('1h')).gpus.filter((g) => g.hostname === 'old-c');
    expect(old).toHaveLength(8);
    for (const g of old) {
      expect(g.verdict.kind).toBe('throttled');
      expect(g.hours['throttled'] ?? 0).toBeGreaterThan(0);
      expect(Object.keys(g.hours)).toEqual(['throttled']);
    }
  });
});
