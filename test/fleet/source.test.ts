/**
 * `--source prometheus:<url>`: the fleet's GPUs as the lab server's devices, from a real Prometheus.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { openPrometheusSource } from '../../server/fleet/source.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { scenarioCluster, writeClusterOpenMetrics } from './cluster.ts';
import {
  recordingFetch,
  startPrometheus,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-source-'));
  const file = join(dir, 'cluster.om');
  const hosts = scenarioCluster().slice(0, 3);
  await writeClusterOpenMetrics(file, hosts, END_MS - 600_000, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the Prometheus source', () => {
  test('every matching GPU is a device named with its host, read from the newest scrape', async () => {
    let nowMs = END_MS;
    const src = await openPrometheusSource({ url: prom.url, now: () => nowMs });
    try {
      expect(src.devices()).toHaveLength(24);
      expect(src.devices()[0]!.name).toMatch(/^NVIDIA .+ \(sim-[a-z-]+, GPU 0\)$/);
      const starved = src.devices().findIndex((d) => d.name.includes('sim-data-starved'));
      const r = src.read(nowMs);
      expect(r.gpus).toHaveLength(24);
      expect(r.gpus[starved]!.error).toBeNull();
      expect(r.gpus[starved]!.gpuUtilPct).toBeGreaterThan(0);
      // Ten minutes later nothing new was scraped: every GPU says so instead of repeating old numbers.
      nowMs = END_MS + 600_000;
      await src.refresh();
      expect(src.read(nowMs).gpus.every((g) => g.error !== null && g.gpuUtilPct === null)).toBe(true);
    } finally {
      src.close();
    }
  });

  test("each refresh reads one value a series, the newest scrape, and each GPU's values are Prometheus's own", async () => {
    const nowMs = END_MS - 120_000;
    const { fetchImpl, sent } = recordingFetch();
    const src = await openPrometheusSource({ url: prom.url, now: () => nowMs, fetchImpl });
    try {
      sent.length = 0;
      await src.refresh();
      // Instant queries only: one value a series, never a range of refreshes.
      expect(sent.filter((q) => q.path.endsWith('/query_range'))).toEqual([]);
      const reads = sent.filter(
        (q) => q.path.endsWith('/query') && q.form.get('query')?.includes('DCGM_FI_DEV_GPU_UTIL'),
      );
      expect(reads.length).toBeGreaterThan(0);
      for (const q of reads) expect(Number(q.form.get('time'))).toBe(nowMs / 1000);
      // What Prometheus itself says each GPU-Util is at that time.
      const own = await createPrometheusClient({ url: prom.url }).query('DCGM_FI_DEV_GPU_UTIL', nowMs / 1000);
      const byUuid = new Map(own.map((r) => [r.labels['UUID'], r.value]));
      const read = src.read(nowMs).gpus;
      expect(read).toHaveLength(24);
      src.devices().forEach((d, i) => expect(read[i]!.gpuUtilPct, d.name).toBe(byUuid.get(d.uuid)));
      expect(new Set(read.map((g) => g.gpuUtilPct)).size).toBeGreaterThan(1);
    } finally {
      src.close();
    }
  });

  test('a selector that matches nothing refuses to start, saying what to check', async () => {
    await expect(
      openPrometheusSource({ url: prom.url, selector: '{hostname="nope"}', now: () => END_MS }),
    ).rejects.toThrow(/no GPU matched \{hostname="nope"\}/);
  });

  test('the fleet audit is served from the same Prometheus and cached between refreshes', async () => {
    const src = await openPrometheusSource({ url: prom.url, now: () => END_MS });
    try {
      const a = await src.fleet(600, 2);
      const b = await src.fleet(600, 2);
      expect(b).toBe(a);
      expect(a.gpus).toHaveLength(24);
      expect(a.summary.pricePerGpuHour).toBe(2);
    } finally {
      src.close();
    }
  });
});
