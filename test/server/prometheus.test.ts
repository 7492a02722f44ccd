/** /metrics text: a series only where the value is known, and when the source was last sampled. */
import { describe, expect, test } from 'vitest';
import type { StreamMessage } from '../../src/protocol/metrics.ts';
import { createPrometheus } from '../../server/prometheus.ts';
import { createSimSource } from '../../server/sources/sim.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

/** A tick of the simulated idle GPU at T0, with `patch` applied. */
function tick(patch: Partial<StreamMessage> = {}): StreamMessage {
  const reading = createSimSource({ spec: 'idle', startMs: T0, seed: 'prom' }).read(T0 + 1000);
  return {
    seq: 1,
    sampledAtMs: T0 + 1000,
    source: 'sim:idle',
    simulated: true,
    reason: null,
    ...reading,
    ...patch,
  };
}

const samples = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe('/metrics', () => {
  test('before the first sample there are no series at all (no zeros)', async () => {
    expect(samples(await createPrometheus(() => null, '0.1.0').render())).toEqual([]);
  });

  test('no throughput, no host and null GPU metrics leave their series out; known ones are there', async () => {
    const m = tick({ host: null, throughput: null });
    m.gpus[0]!.smActivePct = null;
    m.gpus[0]!.powerWatts = null;
    const text = await createPrometheus(() => m, '0.1.0').render();
    const lines = samples(text);
    expect(lines.filter((l) => /^saturate_(training|host)_/.test(l))).toEqual([]);
    expect(lines.filter((l) => /^saturate_gpu_(sm_active_ratio|power_watts)\{/.test(l))).toEqual([]);
    expect(text).not.toMatch(/^# HELP saturate_training_/m); // not even an empty family
    expect(lines).toContainEqual(expect.stringMatching(/^saturate_gpu_memory_used_bytes\{gpu="0",[^}]*\} \d+/));
    expect(lines).toContain(`saturate_sample_timestamp_seconds{source="sim:idle"} ${(T0 + 1000) / 1000}`);
  });

  test('a throughput of 0 that is known is reported as 0; the unknown rates stay absent', async () => {
    const m = tick({
      throughput: {
        samplesPerSec: 0,
        tokensPerSec: null,
        stepsPerSec: null,
        flopsPerUnit: null,
        label: null,
        reportedAtMs: T0,
        simulated: false,
      },
    });
    const lines = samples(await createPrometheus(() => m, '0.1.0').render());
    expect(lines.filter((l) => l.startsWith('saturate_training_'))).toEqual(['saturate_training_samples_per_second 0']);
    expect(lines.some((l) => l.startsWith('saturate_host_cpu_utilization_ratio '))).toBe(true);
  });
});
