/** Recording ticks to NDJSON (`--record`) and replaying them (`--source replay:FILE`). */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthSchema, StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { parseCli } from '../../server/cli.ts';
import { EXIT } from '../../server/defaults.ts';
import { launch } from '../../server/launch.ts';
import { openRecorder } from '../../server/recorder.ts';
import { LineReader } from '../../server/recording.ts';
import { createSampler, type Tick } from '../../server/sampler.ts';
import { createReplaySource, parseRecordingLine } from '../../server/sources/replay.ts';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rec-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Records `count` ticks of `spec` at 500 ms from `fromMs` into `file`; returns the ticks. */
function record(file: string, count: number, fromMs = T0, spec = 'straggler', maxBytes: number | null = null): Tick[] {
  let t = fromMs;
  const recorder = openRecorder(file, {
    source: `sim:${spec}`,
    intervalMs: 500,
    maxBytes,
    now: () => t,
    log: () => {},
  });
  const sampler = createSampler({
    source: createSimSource({ spec, startMs: fromMs }),
    intervalMs: 500,
    now: () => (t += 500),
    onTick: (x) => recorder.write(x),
  });
  const ticks = Array.from({ length: count }, () => sampler.tick());
  sampler.close();
  void recorder.close();
  return ticks;
}
const lines = (file: string): string[] => readFileSync(file, 'utf8').trim().split('\n');

describe('recording', () => {
  test('a header line per run, then one sample per line; the file is 0600', () => {
    const file = join(dir, 'run.ndjson');
    record(file, 6);
    const all = lines(file);
    expect(JSON.parse(all[0]!)).toMatchObject({ recording: { version: 1, source: 'sim:straggler', intervalMs: 500 } });
    expect(all.slice(1).map((l) => StreamMessageSchema.parse(JSON.parse(l)).seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('a file others could read is made 0600; a symlink is refused, not followed', () => {
    const file = join(dir, 'loose.ndjson');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    record(file, 1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const target = join(dir, 'target');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, join(dir, 'link.ndjson'));
    expect(() => openRecorder(join(dir, 'link.ndjson'), { source: 's', intervalMs: 500 })).toThrow(/is a symlink/);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  test('a torn last line (full disk, killed mid-write) is cut before appending, so the next line stays whole', () => {
    const file = join(dir, 'torn.ndjson');
    record(file, 3);
    appendFileSync(file, '{"seq":4,"sampledAtMs":17'); // what a full disk leaves behind
    record(file, 2, T0 + 60_000);
    const all = lines(file);
    expect(all).toHaveLength(1 + 3 + 1 + 2);
    expect(all.filter((l) => 'bad' in parseRecordingLine(l))).toEqual([]);
  });

  test('--record-max rotates: past the size FILE moves to FILE.1 and FILE starts with a header', () => {
    const file = join(dir, 'big.ndjson');
    const lineBytes = Buffer.byteLength(`${record(join(dir, 'probe.ndjson'), 1)[0]!.json}\n`);
    record(file, 25, T0, 'straggler', lineBytes * 10);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(statSync(file).size).toBeLessThanOrEqual(lineBytes * 10);
    expect(statSync(`${file}.1`).mode & 0o777).toBe(0o600);
    expect(JSON.parse(lines(file)[0]!)).toMatchObject({ recording: { rotated: true } });
    // Nothing lost but what the rotations replaced: the newest samples are all there, in order.
    const seqs = [...lines(`${file}.1`), ...lines(file)]
      .map((l) => parseRecordingLine(l))
      .flatMap((p) => ('message' in p ? [p.message.seq] : []));
    expect(seqs.at(-1)).toBe(25);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => 26 - seqs.length + i));
  });

  test('a recording that cannot start fails the start with exit code 5 and why; one that works shows in /api/health', async () => {
    const start = (file: string) =>
      launch(
        { ...parseCli(['--port', '0', '--source', 'sim:idle', '--record', file]), staticDir: null },
        { print: () => {}, log: () => {}, handleSignals: false, env: { XDG_CONFIG_HOME: join(dir, 'config') } },
      );
    await expect(start(join(dir, 'missing', 'run.ndjson'))).rejects.toMatchObject({
      exitCode: EXIT.RECORD,
      message: expect.stringMatching(/folder does not exist/),
    });
    const file = join(dir, 'ok.ndjson');
    const running = await start(file);
    try {
      const health = await fetch(`http://127.0.0.1:${running.port}/api/health`);
      expect(HealthSchema.parse(await health.json()).recording).toMatchObject({ file, error: null });
    } finally {
      await running.stop();
    }
  });

  test('a write that fails stops the recording and /api/health says why', async () => {
    const file = join(dir, 'run.ndjson');
    mkdirSync(join(`${file}.1`, 'in-the-way'), { recursive: true }); // the first rotation cannot rename onto it
    let t = T0;
    const recorder = openRecorder(file, { source: 'sim:idle', intervalMs: 500, maxBytes: 64 * 1024, log: () => {} });
    const s = await listen({
      source: createSimSource({ spec: 'idle', startMs: T0 }),
      autoStart: false,
      now: () => (t += 500),
      onTick: (x) => recorder.write(x),
      recording: () => recorder.status(),
    });
    try {
      for (let i = 0; i < 80 && recorder.status().error === null; i++) s.lab.sampler.tick();
      const health = HealthSchema.parse(await (await fetch(`${s.base}/api/health`)).json());
      expect(health.recording?.error).toMatch(/^Recording stopped: cannot write .*run\.ndjson/);
      const size = statSync(file).size;
      s.lab.sampler.tick();
      expect(statSync(file).size).toBe(size); // stopped: nothing more is written
    } finally {
      await s.lab.close();
      await recorder.close();
    }
  });
});

describe('replay', () => {
  test('replays the same GPUs, flagged simulated, looping; bad lines are skipped', () => {
    const file = join(dir, 'run.ndjson');
    const ticks = record(file, 6);
    appendFileSync(file, 'not json\n{"seq":1}\n');
    const replay = createReplaySource(file, { startMs: 0 });
    expect(replay.simulated).toBe(true);
    expect(replay.devices()).toHaveLength(4);
    expect(replay.read(1000).gpus).toEqual(ticks[2]!.message.gpus); // 1 s in: the third sample
    expect(replay.read(3000 + 1000).gpus).toEqual(ticks[2]!.message.gpus); // loops every 3 s
    expect(replay.reason).toMatch(/2 bad lines skipped/);
    replay.close();
    writeFileSync(join(dir, 'empty.ndjson'), 'garbage\n');
    expect(() => createReplaySource(join(dir, 'empty.ndjson'))).toThrow(/no valid samples/);
  });

  test('two runs in one file: the hour between them is skipped, not replayed as a freeze', () => {
    const file = join(dir, 'two.ndjson');
    const a = record(file, 4); // T0+500 … T0+2000
    const b = record(file, 4, T0 + 3_600_000); // an hour later
    const replay = createReplaySource(file, { startMs: 0 });
    expect(replay.read(1500).gpus).toEqual(a[3]!.message.gpus);
    expect(replay.read(2000).gpus).toEqual(b[0]!.message.gpus); // one interval after the last of run 1
    expect(replay.read(3500).gpus).toEqual(b[3]!.message.gpus);
    expect(replay.reason).toMatch(/1 gaps between recording runs skipped/);
    replay.close();
  });

  test('lines are read through a fixed buffer: a line spanning reads, a final line without newline, an oversized one', () => {
    const file = join(dir, 'lines.txt');
    const long = 'x'.repeat(200_000);
    writeFileSync(file, `a\n${long}\n${'y'.repeat(5 * 1024 * 1024)}\nlast`);
    const reader = new LineReader(file);
    expect([reader.next(), reader.next(), reader.next(), reader.next(), reader.next()]).toEqual([
      'a',
      long,
      '', // over 4 MiB: skipped as a bad line, not held in memory
      'last',
      null,
    ]);
    reader.rewind();
    expect(reader.next()).toBe('a');
    reader.close();
  });
});
