/** The sampling loop: numbering, the resume ring, its schedule (fake timers) and errors. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createSampler } from '../../server/sampler.ts';
import { createSimSource } from '../../server/sources/sim.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

afterEach(() => {
  vi.useRealTimers();
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

  test('ticks once per interval, stamped with its clock', () => {
    vi.useFakeTimers({ now: T0 });
    const sampler = createSampler({ source: createSimSource({ spec: 'idle', startMs: T0 }), intervalMs: 100 });
    const at: number[] = [];
    sampler.subscribe((t) => at.push(t.message.sampledAtMs - T0));
    sampler.start();
    vi.advanceTimersByTime(300);
    expect(at).toEqual([100, 200, 300]);
    sampler.close();
  });

  test('a tick that throws is reported and the loop keeps its schedule', () => {
    vi.useFakeTimers({ now: T0 });
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
    vi.advanceTimersByTime(500);
    sampler.close();
    expect(calls).toBe(5);
    expect(errors).toHaveLength(5);
  });
});
