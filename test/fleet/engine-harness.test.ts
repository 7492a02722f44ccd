/**
 * The test harness itself, on each engine (vitest.config.ts): every sample of the OpenMetrics file the fleet tests
 * load is in the engine, at its time and value, and the engine answers under a path prefix as a proxy serves it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { writeClusterOpenMetrics, scenarioCluster } from './cluster.ts';
import { fleetEngine, startPrometheus, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';
import { toPrometheusText } from './victoria-metrics-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
let prom: RunningPrometheus;
let dir: string;
let file: string;
let written: number;

async function instant(
  expr: string,
  timeS: number,
): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${prom.url}/api/v1/query?${new URLSearchParams({ query: expr, time: String(timeS) })}`);
  const body = (await res.json()) as { status: string; error?: string; data: { result: never[] } };
  expect(body.status, body.error).toBe('success');
  return body.data.result;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-harness-'));
  file = join(dir, 'cluster.om');
  written = await writeClusterOpenMetrics(file, scenarioCluster().slice(0, 2), END_MS - 600_000, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the ${fleetEngine()} the fleet tests start`, () => {
  test('holds every sample the OpenMetrics file has, in the file’s time range', async () => {
    // Name by name: without its name, one GPU's series share a label set, which Prometheus refuses in one vector.
    const names = ((await (await fetch(`${prom.url}/api/v1/label/__name__/values`)).json()) as { data: string[] }).data;
    let held = 0;
    for (const n of names)
      held += Number((await instant(`sum(count_over_time(${n}[601s]))`, END_MS / 1000))[0]!.value[1]);
    expect(held).toBe(written);
    // Nothing before the first scrape: the seconds were not read as milliseconds or the other way round.
    expect(await instant(`count(DCGM_FI_DEV_GPU_UTIL)`, (END_MS - 600_000) / 1000 - 1)).toEqual([]);
  });

  test('answers a sample from the middle of the file with its value, at its time, labels intact', async () => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.filter((l) => l.startsWith('DCGM_FI_DEV_POWER_USAGE{'))[77]!;
    const [, series, value, ts] = /^(\S+\{.*\}) (\S+) (\S+)$/.exec(line)!;
    const r = await instant(series!, Number(ts));
    expect(r).toHaveLength(1);
    expect(Number(r[0]!.value[1])).toBe(Number(value));
    expect(r[0]!.metric['modelName']).toMatch(/^NVIDIA /); // a label value with spaces
  });
});

describe('toPrometheusText', () => {
  test('OpenMetrics seconds become milliseconds; label values keep spaces, braces and escaped quotes', () => {
    expect(toPrometheusText('up{a="x } \\"y\\"",b="z"} 1.5 1764500000.25')).toBe(
      'up{a="x } \\"y\\"",b="z"} 1.5 1764500000250',
    );
    expect(toPrometheusText('up 2 1764500000')).toBe('up 2 1764500000000');
    expect(toPrometheusText('up{a="1"} 3')).toBe('up{a="1"} 3');
  });

  test('comments and the closing # EOF are dropped; an exemplar is refused in words', () => {
    expect(toPrometheusText('# EOF')).toBeNull();
    expect(toPrometheusText('# TYPE up gauge')).toBeNull();
    expect(() => toPrometheusText('up_total 1 1 # {trace="a"} 1')).toThrow(/without exemplars/);
  });
});
