/**
 * `npm run demo:fleet` as a newcomer runs it: three simulated nodes, a real Prometheus scraping them with the token,
 * and a reader whose /fleet/ report fills with hours; SIGTERM (what Ctrl-C's SIGINT also does) leaves no process
 * and no temporary folder behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hasPrometheus } from './prometheus-harness.ts';

const root = new URL('../../', import.meta.url).pathname;
let demo: ChildProcess;
let out = '';
let fleetUrl: URL;

/** Every descendant of `pid` now (children, their children…). */
function descendants(pid: number): number[] {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const [c, pp] of rows) {
      if (pp !== p) continue;
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  if (!hasPrometheus()) throw new Error('demo:fleet runs the real Prometheus: apt-get install prometheus');
  demo = spawn(process.execPath, ['scripts/demo-fleet.ts', '--api-only'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  demo.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  demo.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await new Promise<void>((resolve, reject) => {
    demo.stdout!.on('data', () => /Open the fleet: \S+/.test(out) && resolve());
    demo.once('exit', (code) => reject(new Error(`demo:fleet exited ${code}:\n${out}`)));
  });
  fleetUrl = new URL(/Open the fleet: (\S+)/.exec(out)![1]!);
}, 200_000);

afterAll(() => {
  if (demo.exitCode === null) demo.kill('SIGKILL');
});

describe('npm run demo:fleet', () => {
  test('prints a /fleet/ URL with the token, whose report lists 12 simulated GPUs and fills with hours', async () => {
    expect(fleetUrl.pathname).toBe('/fleet/');
    const token = fleetUrl.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    let report: {
      gpus: { simulated: boolean; hostname: string }[];
      summary: { gpuHours: number };
      dataSpanS: number | null;
    };
    // What the newcomer waits for: the report fills in as Prometheus's first scrapes arrive. A host first scraped in
    // the second the first report was read at (its end is a whole second) joins the next one, a refresh later.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${fleetUrl.origin}/api/fleet?window=1h&token=${token}`);
      expect(res.status).toBe(200);
      report = (await res.json()) as typeof report;
      if ((report.summary.gpuHours > 0 && report.gpus.length >= 12) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(report.summary.gpuHours).toBeGreaterThan(0);
    expect(report.gpus).toHaveLength(12);
    expect(report.gpus.every((g) => g.simulated)).toBe(true);
    expect(new Set(report.gpus.map((g) => g.hostname))).toEqual(
      new Set(['demo-data-starved', 'demo-idle', 'demo-small-kernels']),
    );
    expect(report.dataSpanS).not.toBeNull(); // it has data: a span of 0 s when it has scraped once
  }, 120_000);

  test('SIGTERM stops the nodes, Prometheus and the reader, and removes its folder', async () => {
    const children = descendants(demo.pid!);
    expect(children.length).toBeGreaterThanOrEqual(5); // 3 nodes, Prometheus, the reader
    const folder = dirname(/\(config: (\S+)\)/.exec(out)![1]!);
    expect(existsSync(folder)).toBe(true);
    const exited = new Promise<number | null>((r) => demo.once('exit', (code) => r(code)));
    demo.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(children.filter(alive)).toEqual([]);
    expect(existsSync(folder)).toBe(false);
  }, 30_000);
});
