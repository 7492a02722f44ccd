/** Recording ticks to NDJSON (`--record`) and replaying them (`--source replay:FILE`). */
import { describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { createRecorder } from '../../server/recorder.ts';
import { createSampler } from '../../server/sampler.ts';
import { createReplaySource, parseRecording } from '../../server/sources/replay.ts';
import { createSimSource } from '../../server/sources/sim.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

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
