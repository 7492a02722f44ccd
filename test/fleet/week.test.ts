/**
 * The 7-day window, fast: a week of two hosts backfilled at 5-minute resolution. One trained for four days and
 * then sat idle with its memory held for three; the other trained all week.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runAudit, EXIT } from '../../scripts/audit.ts';
import { writeClusterOpenMetrics, GPUS_PER_HOST } from './cluster.ts';
import { startPrometheus, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const DAY = 86_400_000;
const END_MS = Date.UTC(2026, 10, 30, 0, 0, 0);
let prom: RunningPrometheus;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-week-'));
  const file = join(dir, 'week.om');
  await writeClusterOpenMetrics(
    file,
    [
      {
        hostname: 'gpu-left-on',
        phases: [
          { fromMs: 0, scenario: 'compute-bound' },
          { fromMs: 4 * DAY, scenario: 'idle' },
        ],
      },
      { hostname: 'gpu-busy', phases: [{ fromMs: 0, scenario: 'compute-bound' }] },
    ],
    END_MS - 7 * DAY,
    END_MS,
    300_000,
  );
  prom = await startPrometheus({ openMetricsFile: file });
}, 400_000); // the 7-day backfill took over 180 s on a loaded 2-core machine

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a 7-day audit', () => {
  test('the three idle days are counted as idle but allocated, the busy week as work', async () => {
    let out = '';
    const code = await runAudit(
      ['--prometheus', prom.url, '--window', '7d', '--end', new Date(END_MS).toISOString(), '--json'],
      (s) => (out += s),
      () => undefined,
    );
    expect(code).toBe(EXIT.ok);
    const r = JSON.parse(out) as {
      window: { segmentS: number };
      gpus: { hostname: string; hours: Record<string, number> }[];
      summary: { byKind: Record<string, number> };
    };
    expect(r.window.segmentS).toBe(21_600); // 7 days in 28 segments of 6 h
    const idleHours = r.summary.byKind['idle-allocated'] ?? 0;
    // 8 GPUs × 72 h, give or take the one segment that straddles the change.
    expect(idleHours).toBeGreaterThan(GPUS_PER_HOST * (72 - 6));
    expect(idleHours).toBeLessThan(GPUS_PER_HOST * (72 + 6));
    const busy = r.gpus.filter((g) => g.hostname === 'gpu-busy');
    for (const g of busy) expect(g.hours['compute-bound']).toBeGreaterThan(7 * 24 - 12);
  });
});
