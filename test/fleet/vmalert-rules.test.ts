/**
 * deploy/prometheus/saturate-rules.yml on VictoriaMetrics: vmalert (Debian's victoria-metrics package) accepts the
 * same file Prometheus loads, and its replay mode writes the recorded series over backfilled history, as a platform
 * team would on moving a fleet to VictoriaMetrics. Whatever rules the file holds are checked.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { GPUS_PER_HOST, writeClusterOpenMetrics } from './cluster.ts';
import { startEngine, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';
import { flushUntilAllHeld } from './victoria-metrics-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const RULES = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus', 'saturate-rules.yml');
const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const vmalert = (...args: string[]) => spawnSync('vmalert', ['-loggerLevel=ERROR', ...args], { encoding: 'utf8' });

let vm: RunningPrometheus;
let dir: string;
let replay: ReturnType<typeof vmalert>;

async function instant(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const q = new URLSearchParams({ query: expr, time: String(END_MS / 1000) });
  return ((await (await fetch(`${vm.url}/api/v1/query?${q}`)).json()) as { data: { result: never[] } }).data.result;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-vmalert-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(
    file,
    [
      { hostname: 'idle-host', phases: [{ fromMs: 0, scenario: 'idle' }] },
      { hostname: 'busy-host', phases: [{ fromMs: 0, scenario: 'compute-bound' }] },
    ],
    END_MS - HOUR_MS,
    END_MS,
    15_000,
  );
  vm = await startEngine('victoria-metrics', { openMetricsFile: file });
  replay = vmalert(
    `-rule=${RULES}`,
    `-datasource.url=${vm.url}`,
    `-remoteWrite.url=${vm.url}`,
    `-replay.timeFrom=${iso(END_MS - HOUR_MS)}`,
    `-replay.timeTo=${iso(END_MS)}`,
    '-replay.disableProgressBar',
    // Each group at its own interval: the default step (5m) would write one point every five minutes.
    '-datasource.queryStep=0s',
    // A rule that reads another's series waits until those are written (flushed every 200 ms) and searchable.
    '-remoteWrite.flushInterval=200ms',
    '-replay.rulesDelay=2s',
  );
  // Every point the replay wrote (and the import) searchable before the tests read them: one flush is not always enough.
  await flushUntilAllHeld(vm.url, { minMs: END_MS - 2 * HOUR_MS, maxMs: END_MS + HOUR_MS, what: 'the replay' });
}, 180_000);

afterAll(async () => {
  await vm?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('vmalert and deploy/prometheus/saturate-rules.yml', () => {
  test('vmalert -dryRun accepts the rules file; a broken expression is refused with its rule named', () => {
    const ok = vmalert('-dryRun', `-rule=${RULES}`);
    expect(ok.error, 'vmalert is missing: apt-get install victoria-metrics').toBeUndefined();
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    const broken = join(dir, 'broken.yml');
    writeFileSync(broken, readFileSync(RULES, 'utf8').replace(/expr: (.+)\n/, 'expr: sum(rate($1) by (\n'));
    const bad = vmalert('-dryRun', `-rule=${broken}`);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/invalid expression for rule/);
  });

  test('replay over an hour of backfilled history evaluates every rule in the file without an error', () => {
    const out = replay.stdout + replay.stderr;
    expect(replay.status, out).toBe(0);
    expect(out).not.toMatch(/\berror\b/i);
    const names = [...readFileSync(RULES, 'utf8').matchAll(/^\s*-\s*(?:record|alert):\s*(\S+)/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(out, n).toContain(`> Rule "${n}"`);
  });

  test('the replayed state series are queryable: idle but allocated is 1 on the idle host and 0 on the busy one', async () => {
    const r = await instant('saturate:gpu_idle_allocated');
    const on = (host: string) => r.filter((s) => s.metric['hostname'] === host).map((s) => s.value[1]);
    expect(on('idle-host')).toEqual(Array(GPUS_PER_HOST).fill('1'));
    expect(on('busy-host')).toEqual(Array(GPUS_PER_HOST).fill('0'));
  });

  test("each recorded series holds a point per group interval (30 s): 120 in the hour, not the default step's 12", async () => {
    const r = await instant('count_over_time(saturate:gpu_util:avg5m[1h])');
    expect(r).toHaveLength(2 * GPUS_PER_HOST);
    for (const s of r) expect(s.value[1]).toBe('120');
  });
});
