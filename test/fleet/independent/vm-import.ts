/**
 * The independent cluster into VictoriaMetrics: written 2 hours at a time in Prometheus text format (millisecond
 * timestamps) and posted to `/api/v1/import/prometheus` in bodies of about 16 MB cut at line ends, then flushed until
 * queries see every sample.
 */
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { flushUntilHeld } from '../victoria-metrics-harness.ts';
import type { PlannedHost } from './plan.ts';
import { clusterWriter } from './write.ts';

const CHUNK = 16 << 20;

async function postFile(url: string, file: string): Promise<void> {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    while (pos < size) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      const end = n < CHUNK ? n : buf.lastIndexOf(0x0a, n - 1) + 1;
      const res = await fetch(`${url}/api/v1/import/prometheus`, { method: 'POST', body: buf.subarray(0, end) });
      if (!res.ok) throw new Error(`victoria-metrics refused the import: HTTP ${res.status} ${await res.text()}`);
      pos += end;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Imports `hosts` (their window starting at `startS`) from `fromS` to `endS` every `stepS` into a VictoriaMetrics that
 * holds nothing else over that time (its count is checked); returns the samples and the seconds it took.
 */
export async function importIntoVictoriaMetrics(
  url: string,
  hosts: PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
  fromS = startS,
): Promise<{ samples: number; seconds: number }> {
  const t = performance.now();
  const w = clusterWriter(hosts, startS, stepS, { timestampsMs: true });
  let samples = 0;
  for (let from = Math.floor(fromS / 7200) * 7200; from <= endS; from += 7200) {
    const file = join(workDir, `vm-${from}.prom`);
    samples += w.writeRange(file, Math.max(from, fromS), Math.min(from + 7200, endS + 1));
    await postFile(url, file);
    rmSync(file, { force: true });
  }
  await flushUntilHeld(url, { samples, minMs: fromS * 1000, maxMs: endS * 1000, what: 'the raw scrapes' });
  return { samples, seconds: (performance.now() - t) / 1000 };
}
