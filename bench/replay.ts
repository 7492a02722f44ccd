/**
 * Replay memory benchmark (`node bench/replay.ts [MB, default 1024]`): writes a recording of about MB
 * megabytes as `--record` does (sim:straggler, 4 GPUs, 100 ms), then, in a fresh process, replays it
 * from its first sample to its last (one read per recorded tick) and reports the process's RSS before,
 * at its peak and at the end. The recording is deleted afterwards. Needs MB of free space in the temp dir.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INTERVAL_MS = 100;

/** Writes the recording; returns the samples written. */
async function generate(file: string, targetBytes: number): Promise<number> {
  const { openRecorder } = await import('../server/recorder.ts');
  const { createSampler } = await import('../server/sampler.ts');
  const { createSimSource } = await import('../server/sources/sim.ts');
  let t = Date.parse('2026-03-29T00:00:00Z');
  const recorder = openRecorder(file, { source: 'sim:straggler', intervalMs: INTERVAL_MS, maxBytes: 0, now: () => t });
  const sampler = createSampler({
    source: createSimSource({ spec: 'straggler', startMs: t }),
    intervalMs: INTERVAL_MS,
    capacity: 1,
    now: () => (t += INTERVAL_MS),
    onTick: (x) => recorder.write(x),
  });
  let samples = 0;
  while (recorder.status().bytes < targetBytes) {
    sampler.tick();
    samples++;
  }
  await recorder.close();
  return samples;
}

/** In the child: replays `file` through `reads` ticks and prints the RSS figures as JSON. */
async function replay(file: string, reads: number): Promise<void> {
  const { createReplaySource } = await import('../server/sources/replay.ts');
  const rssMb = (): number => process.memoryUsage().rss / 1e6;
  const beforeMb = rssMb();
  const started = performance.now();
  const source = createReplaySource(file, { startMs: 0 });
  let peakMb = rssMb();
  for (let i = 0; i < reads; i++) {
    source.read(i * INTERVAL_MS);
    if (i % 2000 === 0) peakMb = Math.max(peakMb, rssMb());
  }
  peakMb = Math.max(peakMb, rssMb(), (process.resourceUsage().maxRSS * 1024) / 1e6);
  source.close();
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ beforeMb, peakMb, endMb: rssMb(), seconds }));
}

if (process.argv[2] === '--replay') {
  await replay(process.argv[3] as string, Number(process.argv[4]));
} else {
  const mb = Number(process.argv[2] ?? 1024);
  const dir = mkdtempSync(join(tmpdir(), 'saturate-replay-'));
  const file = join(dir, 'big.ndjson');
  try {
    const samples = await generate(file, mb * 1024 * 1024);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--replay', file, String(samples)], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`replay failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout) as { beforeMb: number; peakMb: number; endMb: number; seconds: number };
    console.log(`| recording | samples | RSS before | RSS peak | RSS end | replay time |
|---|---|---|---|---|---|
| ${mb} MiB (sim:straggler, 4 GPUs, ${INTERVAL_MS} ms) | ${samples} | ${r.beforeMb.toFixed(1)} MB | ${r.peakMb.toFixed(1)} MB | ${r.endMb.toFixed(1)} MB | ${r.seconds.toFixed(1)} s |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
