import { describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { createHostProbe, parseMeminfo } from '../../server/host.ts';
import { decodeReasons } from '../../server/nvml/structs.ts';
import { createRecorder } from '../../server/recorder.ts';
import { createSampler } from '../../server/sampler.ts';
import { hostChecker, hostnameOf, tokenFrom, tokenMatches } from '../../server/security.ts';
import { createReplaySource, parseRecording } from '../../server/sources/replay.ts';
import { createSimSource } from '../../server/sources/sim.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

describe('host probe', () => {
  test('per-core utilization is the busy share between two reads', () => {
    const stats = [
      'cpu  0 0 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n',
      'cpu  0 0 0 0 0 0 0 0\ncpu0 200 0 200 800 0 0 0 0\ncpu1 10 0 0 1090 0 0 0 0\n',
    ];
    let i = 0;
    const probe = createHostProbe({
      stat: () => stats[Math.min(i++, 1)] ?? null,
      meminfo: () => 'MemTotal:       16384000 kB\nMemFree:         1000000 kB\nMemAvailable:    8192000 kB\n',
      loadavg: () => [1.234, 0.5, 0.25],
    });
    probe.sample(T0);
    const s = probe.sample(T0 + 1000);
    expect(s.perCorePct).toEqual([100, 10]); // core 0 pegged, core 1 at 10%
    expect(s.cpuPct).toBe(55);
    expect(s.load).toEqual({ avg1: 1.23, avg5: 0.5, avg15: 0.25 });
    expect(s.mem).toEqual({ totalBytes: 16384000 * 1024, availableBytes: 8192000 * 1024, usedBytes: 8192000 * 1024 });
    expect(parseMeminfo('garbage')).toBeNull();
  });

  test('CPU is read over windows of at least 250 ms, memory and load at most once a second', () => {
    const reads = { stat: 0, meminfo: 0, loadavg: 0 };
    let availableKb = 8192000;
    const probe = createHostProbe({
      stat: () => {
        reads.stat++;
        return `cpu  0 0 0 0 0 0 0 0\ncpu0 ${reads.stat * 10} 0 0 1000 0 0 0 0\n`;
      },
      meminfo: () => {
        reads.meminfo++;
        return `MemTotal:       16384000 kB\nMemAvailable:    ${availableKb} kB\n`;
      },
      loadavg: () => {
        reads.loadavg++;
        return [1, 1, 1];
      },
    });
    const first = probe.sample(T0);
    availableKb = 4096000;
    for (let t = 100; t < 1000; t += 100)
      expect(probe.sample(T0 + t).mem.availableBytes).toBe(first.mem.availableBytes);
    expect(probe.sample(T0 + 1000).mem.availableBytes).toBe(4096000 * 1024);
    // Samples every 100 ms from 0 to 1000: CPU read at 0, 300, 600 and 900; memory and load at 0 and 1000.
    expect(reads).toEqual({ stat: 4, meminfo: 2, loadavg: 2 });
  });
});

describe('security helpers', () => {
  test('tokens compare exactly; Bearer wins over the query', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
    expect(tokenFrom('Bearer xyz', 'q')).toBe('xyz');
    expect(tokenFrom(undefined, 'q')).toBe('q');
  });
  test('Host check accepts loopback names and the configured host only', () => {
    const ok = hostChecker('lab.internal');
    for (const h of ['localhost', 'localhost:8790', '127.0.0.1:1', '127.1.2.3', '[::1]:8790', 'lab.internal:8790'])
      expect(ok(h), h).toBe(true);
    for (const h of ['evil.example', 'localhost.evil.example', '10.0.0.1', '', '[::2]']) expect(ok(h), h).toBe(false);
    expect(ok(undefined)).toBe(false);
    expect(hostnameOf('[::1]:80')).toBe('::1');
  });
});

describe('decodeReasons', () => {
  test('names each bit and keeps unknown bits visible', () => {
    expect(decodeReasons(0n)).toEqual([]);
    expect(decodeReasons(0x1n | 0x40n)).toEqual(['GpuIdle', 'HwThermalSlowdown']);
    expect(decodeReasons(0x10000n)).toEqual(['Unknown(0x10000)']);
  });
});

describe('sampler', () => {
  test('keeps the last `capacity` ticks for resume and numbers them from 1', () => {
    let t = T0;
    const sampler = createSampler({
      source: createSimSource({ spec: 'idle', startMs: T0 }),
      intervalMs: 500,
      capacity: 4,
      now: () => (t += 500),
    });
    for (let i = 0; i < 10; i++) sampler.tick();
    expect(sampler.latest()?.message.seq).toBe(10);
    expect(sampler.since(0).map((x) => x.message.seq)).toEqual([7, 8, 9, 10]);
    expect(sampler.since(8).map((x) => x.message.seq)).toEqual([9, 10]);
    expect(sampler.since(10)).toEqual([]);
    expect(sampler.latest()?.message.sampledAtMs).toBe(T0 + 5000);
    sampler.close();
  });

  test('a tick that throws is reported and the loop keeps its schedule', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const source = {
      ...createSimSource({ spec: 'idle' }),
      read: () => {
        calls++;
        throw new Error('boom');
      },
    };
    const sampler = createSampler({ source, intervalMs: 100, onError: (e) => errors.push(e) });
    sampler.start();
    await expect.poll(() => calls, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
    sampler.close();
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});

describe('record and replay', () => {
  test('a recording replays the same GPUs, flagged simulated, and bad lines are skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const file = join(dir, 'run.ndjson');
    try {
      const recorder = createRecorder(file);
      let t = T0;
      const sampler = createSampler({
        source: createSimSource({ spec: 'straggler', startMs: T0 }),
        intervalMs: 500,
        now: () => (t += 500),
        onTick: (x) => recorder.write(x),
      });
      for (let i = 0; i < 6; i++) sampler.tick();
      sampler.close();
      await recorder.close();
      const text = readFileSync(file, 'utf8');
      expect(
        text
          .trim()
          .split('\n')
          .map((l) => StreamMessageSchema.parse(JSON.parse(l)).seq),
      ).toEqual([1, 2, 3, 4, 5, 6]);
      const { messages, skipped } = parseRecording(`${text}not json\n{"seq":1}\n`);
      expect([messages.length, skipped]).toEqual([6, 2]);
      const replay = createReplaySource(file, { startMs: 0 });
      expect(replay.simulated).toBe(true);
      expect(replay.devices()).toHaveLength(4);
      const recorded = JSON.parse(text.split('\n')[2] ?? '{}') as { gpus: unknown };
      expect(replay.read(1000).gpus).toEqual(recorded.gpus); // 1 s in: the third sample
      expect(replay.read(3000 + 1000).gpus).toEqual(recorded.gpus); // loops every 3 s
      expect(() => parseRecording('')).toThrow(/no valid samples/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
