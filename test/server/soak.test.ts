/**
 * Soak: 50 SSE clients connect and drop for SOAK_SECONDS (default 60) against one server at 10 Hz.
 * Clients that stay see every tick (consecutive ids, none lost); once everyone leaves, the heap is
 * back at the level it had after a short warm-up of the same traffic (one-time allocations such as
 * compiled code and connection pools are in that baseline; a leak would grow with time). Heap is
 * measured after forced GC (vitest runs with --expose-gc).
 */
import { describe, expect, test } from 'vitest';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen, seqOf, sseReader } from './helpers.ts';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 60);
const WARM_SECONDS = 8;
const STAYERS = 10;
const CHURNERS = 40;

const gc = (globalThis as { gc?: () => void }).gc;
async function settledHeap(): Promise<number> {
  await new Promise((r) => setTimeout(r, 500)); // let the server notice the last disconnects
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  return process.memoryUsage().heapUsed;
}

/** Runs the traffic for `seconds`: stayers read every tick, churners connect, read 1–15 ticks, drop. */
async function traffic(
  url: string,
  seconds: number,
): Promise<{ stayed: { ticks: number; gaps: number }[]; connections: number }> {
  const end = Date.now() + seconds * 1000;
  const stayer = async (): Promise<{ ticks: number; gaps: number }> => {
    const sse = sseReader(await fetch(url));
    let last: number | null = null;
    let ticks = 0;
    let gaps = 0;
    while (Date.now() < end) {
      const ev = await sse.next(15_000);
      if (ev.event !== 'sample') continue;
      const id = seqOf(ev.id);
      if (last !== null && id !== last + 1) gaps++;
      last = id;
      ticks++;
    }
    await sse.cancel();
    return { ticks, gaps };
  };
  let connections = 0;
  const churner = async (n: number): Promise<void> => {
    while (Date.now() < end) {
      const sse = sseReader(await fetch(url));
      connections++;
      const keep = 1 + ((n * 7 + connections) % 15);
      for (let i = 0; i < keep && Date.now() < end; i++) await sse.next(15_000);
      await sse.cancel();
    }
  };
  const [stayed] = await Promise.all([
    Promise.all(Array.from({ length: STAYERS }, stayer)),
    Promise.all(Array.from({ length: CHURNERS }, (_, n) => churner(n))),
  ]);
  return { stayed, connections };
}

describe('soak', { timeout: (SECONDS + WARM_SECONDS + 60) * 1000 }, () => {
  test(`${CHURNERS + STAYERS} clients connecting and dropping for ${SECONDS} s: no tick lost for those that stay, memory returns`, async () => {
    expect(gc, 'run vitest with --expose-gc (vitest.config.ts sets it)').toBeTypeOf('function');
    const source = createSimSource({ spec: 'data-starved', startMs: Date.parse('2026-03-29T01:30:00Z'), seed: 'soak' });
    // A 50-tick ring: full after the warm-up, so the baseline already holds it.
    const s = await listen({ source, intervalMs: 100, maxStreams: 500, capacity: 50 }); // the stream limit is tested elsewhere
    try {
      const url = `${s.base}/api/stream?token=${s.token}`;
      await traffic(url, WARM_SECONDS);
      const baseline = await settledHeap();
      const { stayed, connections } = await traffic(url, SECONDS);
      const after = await settledHeap();
      // Passing tests print nothing: the figures go into the failure message instead.
      const summary = `${connections} churned connections in ${SECONDS} s, heap ${(baseline / 1e6).toFixed(1)} MB after warm-up → ${(after / 1e6).toFixed(1)} MB after`;
      for (const r of stayed) {
        expect(r.gaps).toBe(0);
        expect(r.ticks).toBeGreaterThan(SECONDS * 10 * 0.5); // 10 Hz, allowing for a loaded machine
      }
      expect(connections, summary).toBeGreaterThan(CHURNERS * 2);
      expect(after, summary).toBeLessThan(baseline * 1.1 + 1e6);
    } finally {
      await s.lab.close();
    }
  });
});
