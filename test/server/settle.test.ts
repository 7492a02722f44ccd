import { describe, expect, test } from 'vitest';
import { get, type ClientRequest } from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
import { createSimSource } from '../../server/sources/sim.ts';
import { memoryReducingGc, SETTLE_MIN_CONNECTIONS, SETTLE_QUIET_MS } from '../../server/settle.ts';
import { listen, manualClock, type Running } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

/** `n` requests for /api/health, each on a socket of its own that then closes (as churning tabs do). */
async function connectTimes(s: Running, n: number): Promise<void> {
  const { base } = s;
  for (let i = 0; i < n; i++)
    await new Promise<void>((resolve, reject) => {
      get(`${base}/api/health`, { agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).on('error', reject);
    });
  while (s.lab.activeConnections() > 0) await new Promise((r) => setImmediate(r)); // the server saw them close
}

/** A lab server on a manual stream clock that counts its memory reductions instead of running a GC. */
async function settleServer() {
  const clock = manualClock(T0);
  let count = 0;
  const s = await listen({
    source: createSimSource({ spec: 'idle', startMs: T0, seed: 'settle' }),
    autoStart: false,
    streamClock: clock,
    settleMemory: () => count++,
  });
  return { s, clock, reductions: () => count };
}

describe('giving memory back after a burst of connections', () => {
  test('after a burst, memory is given back once, when no connection arrived for the quiet spell', async () => {
    const { s, clock, reductions } = await settleServer();
    try {
      await connectTimes(s, SETTLE_MIN_CONNECTIONS);
      clock.advance(SETTLE_QUIET_MS - 1000);
      expect(reductions()).toBe(0); // the burst may not be over
      clock.advance(1000);
      expect(reductions()).toBe(1);
      clock.advance(10 * SETTLE_QUIET_MS);
      expect(reductions()).toBe(1);
      // A few tabs later: below the threshold, no GC pause.
      await connectTimes(s, 5);
      clock.advance(10 * SETTLE_QUIET_MS);
      expect(reductions()).toBe(1);
    } finally {
      await s.lab.close();
    }
  });

  test('clients that connect and stay are no burst: their streams are not paused by a GC', async () => {
    const { s, clock, reductions } = await settleServer();
    const streams: ClientRequest[] = [];
    try {
      for (let i = 0; i < SETTLE_MIN_CONNECTIONS; i++)
        await new Promise<void>((resolve) => {
          const req = get(`${s.base}/api/stream?token=${s.token}`, { agent: false }, () => resolve());
          req.on('error', () => {}); // destroyed at the end
          streams.push(req);
        });
      clock.advance(10 * SETTLE_QUIET_MS);
      expect(reductions()).toBe(0);
    } finally {
      streams.forEach((r) => r.destroy());
      await s.lab.close();
    }
  });

  test('a burst that has not ended yet is left alone', async () => {
    const { s, clock, reductions } = await settleServer();
    try {
      for (let i = 0; i < 4; i++) {
        await connectTimes(s, SETTLE_MIN_CONNECTIONS / 4);
        clock.advance(SETTLE_QUIET_MS - 1000);
      }
      expect(reductions()).toBe(0);
      clock.advance(1000);
      expect(reductions()).toBe(1);
    } finally {
      await s.lab.close();
    }
  });

  test("the memory-reducing GC shrinks V8's young generation and exposes no gc()", () => {
    const exposedBefore = typeof (globalThis as { gc?: unknown }).gc; // vitest's own workers may expose it
    const reduce = memoryReducingGc();
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(exposedBefore);
    const newSpace = () => getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.physical_space_size ?? 0;
    let garbage: { i: number; s: string }[] | null = [];
    for (let i = 0; i < 300_000; i++) garbage.push({ i, s: `x${i}` });
    garbage = null;
    const before = newSpace();
    reduce();
    expect(garbage).toBeNull();
    expect(newSpace()).toBeLessThan(before / 4);
  });
});
