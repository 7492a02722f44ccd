import { describe, expect, test } from 'vitest';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { createSimSource } from '../../server/sources/sim.ts';
import { resumeAfter } from '../../server/stream.ts';
import { listen, manualClock, rawRequest, seqOf, sseReader } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');
const sim = (spec = 'straggler') => createSimSource({ spec, startMs: T0, seed: 'stream-test' });

describe('GET /api/stream', () => {
  test('delivers one sample event per tick at the interval, every GPU in each', async () => {
    const s = await listen({ source: sim(), intervalMs: 100 });
    try {
      const res = await fetch(`${s.base}/api/stream?token=${s.token}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const sse = sseReader(res);
      const events = [];
      for (let i = 0; i < 6; i++) events.push(await sse.next());
      await sse.cancel();
      const messages = events.map((e) => {
        expect(e.event).toBe('sample');
        const m = StreamMessageSchema.parse(JSON.parse(e.data));
        expect(e.id).toBe(`${s.lab.bootId}-${m.seq}`);
        expect(m.gpus).toHaveLength(4);
        expect(m.simulated).toBe(true);
        return m;
      });
      // One event per tick, none skipped; the sampler's timing is tested with fake timers (sampler.test.ts).
      for (let i = 1; i < messages.length; i++) {
        const prev = messages[i - 1]!;
        const cur = messages[i]!;
        expect(cur.seq).toBe(prev.seq + 1);
        expect(cur.sampledAtMs).toBeGreaterThan(prev.sampledAtMs);
      }
    } finally {
      await s.lab.close();
    }
  });

  test('resumes after a dropped connection with Last-Event-ID, without gaps or repeats', async () => {
    let t = T0;
    const s = await listen({ source: sim(), autoStart: false, now: () => (t += 500) });
    const url = `${s.base}/api/stream?token=${s.token}`;
    try {
      s.lab.sampler.tick();
      const first = sseReader(await fetch(url));
      const seen: number[] = [seqOf((await first.next()).id)];
      s.lab.sampler.tick();
      s.lab.sampler.tick();
      seen.push(seqOf((await first.next()).id), seqOf((await first.next()).id));
      await first.cancel(); // the connection drops ...
      for (let i = 0; i < 5; i++) s.lab.sampler.tick(); // ... while the server keeps sampling
      const resumed = sseReader(await fetch(url, { headers: { 'last-event-id': `${s.lab.bootId}-${seen.at(-1)}` } }));
      for (let i = 0; i < 5; i++) seen.push(seqOf((await resumed.next()).id));
      s.lab.sampler.tick();
      seen.push(seqOf((await resumed.next()).id));
      await resumed.cancel();
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await s.lab.close();
    }
  });

  test('a resume from far back gets every missed tick, each with its own data', async () => {
    let t = T0;
    const s = await listen({ source: sim(), autoStart: false, now: () => (t += 500) });
    const url = `${s.base}/api/stream?token=${s.token}`;
    try {
      const live = sseReader(await fetch(url)); // a client online throughout: frames get made as ticks happen
      for (let i = 0; i < 60; i++) s.lab.sampler.tick();
      for (let i = 0; i < 60; i++) await live.next();
      const resumed = sseReader(await fetch(url, { headers: { 'last-event-id': `${s.lab.bootId}-10` } }));
      const events = [];
      for (let i = 0; i < 50; i++) events.push(await resumed.next());
      expect(events.map((e) => seqOf(e.id))).toEqual(Array.from({ length: 50 }, (_, i) => 11 + i));
      for (const e of events) expect(StreamMessageSchema.parse(JSON.parse(e.data)).seq).toBe(seqOf(e.id));
      await resumed.cancel();
      await live.cancel();
    } finally {
      await s.lab.close();
    }
  });

  test('after a restart, an id of the previous run or one ahead of the server gets the latest tick at once', async () => {
    let t = T0;
    const s = await listen({ source: sim(), autoStart: false, now: () => (t += 500), bootId: 'b0072' });
    const url = `${s.base}/api/stream?token=${s.token}`;
    try {
      for (let i = 0; i < 3; i++) s.lab.sampler.tick();
      // The previous run had reached seq 3600 (an hour at 1 Hz); this run is at 3.
      for (const lastId of ['a0071-3600', 'b0072-999', '3600', 'garbage']) {
        const sse = sseReader(await fetch(url, { headers: { 'last-event-id': lastId } }));
        const first = await sse.next(1000); // at once: no waiting for the counter to pass the old id
        expect([lastId, first.event, first.id]).toEqual([lastId, 'sample', 'b0072-3']);
        await sse.cancel();
      }
      // An id of this run still resumes exactly where it left off.
      const resumed = sseReader(await fetch(url, { headers: { 'last-event-id': 'b0072-1' } }));
      expect([(await resumed.next()).id, (await resumed.next()).id]).toEqual(['b0072-2', 'b0072-3']);
      await resumed.cancel();
    } finally {
      await s.lab.close();
    }
  });

  test('past the connection cap a request gets 503 with Retry-After, and is served again once one closes', async () => {
    const s = await listen({ source: sim(), autoStart: false, maxConnections: 3 });
    const idle = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(s.port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    try {
      await expect.poll(() => s.lab.activeConnections()).toBe(3);
      const refused = await rawRequest(s.port, { path: '/api/health' });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.body).toMatch(/--max-connections/);
      idle[0]!.destroy();
      await expect.poll(() => s.lab.activeConnections()).toBe(2);
      expect((await rawRequest(s.port, { path: '/api/health' })).status).toBe(200);
    } finally {
      for (const socket of idle) socket.destroy();
      await s.lab.close();
    }
  });

  test('answers 503 past the stream limit and accepts again once a stream closes', async () => {
    const s = await listen({ source: sim('idle'), autoStart: false, maxStreams: 2 });
    const url = `${s.base}/api/stream?token=${s.token}`;
    try {
      s.lab.sampler.tick();
      const a = sseReader(await fetch(url));
      const b = sseReader(await fetch(url));
      await a.next();
      await b.next();
      const third = await fetch(url);
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('5');
      expect(((await third.json()) as { error: string }).error).toMatch(/Too many live streams \(limit 2\)/);
      await a.cancel();
      await expect.poll(() => s.lab.activeStreams(), { timeout: 2000 }).toBe(1);
      const again = sseReader(await fetch(url));
      expect((await again.next()).event).toBe('sample');
      await again.cancel();
      await b.cancel();
    } finally {
      await s.lab.close();
    }
  });

  test('a stream carries the security headers, and CORS only for an allowed origin', async () => {
    const s = await listen({ source: sim('idle'), autoStart: false, allowOrigins: ['https://saturate.example'] });
    try {
      s.lab.sampler.tick();
      const res = await fetch(`${s.base}/api/stream?token=${s.token}`, {
        headers: { origin: 'https://saturate.example' },
      });
      expect(res.status).toBe(200);
      expect(
        Object.fromEntries(
          ['access-control-allow-origin', 'vary', 'x-content-type-options', 'referrer-policy', 'cache-control'].map(
            (h) => [h, res.headers.get(h)],
          ),
        ),
      ).toEqual({
        'access-control-allow-origin': 'https://saturate.example',
        vary: 'Origin',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      });
      const sse = sseReader(res);
      expect((await sse.next()).event).toBe('sample');
      await sse.cancel();
      const plain = await fetch(`${s.base}/api/stream?token=${s.token}`);
      expect(plain.headers.get('access-control-allow-origin')).toBeNull();
      await plain.body?.cancel();
    } finally {
      await s.lab.close();
    }
  });

  test('a client that stops reading is dropped; one that reads gets every tick', async () => {
    const s = await listen({ source: sim('straggler'), autoStart: false });
    try {
      s.lab.sampler.tick();
      // The stalled client: sends its request, then never reads (the socket is paused).
      const stalled = connect(s.port, '127.0.0.1');
      stalled.pause();
      stalled.on('error', () => {});
      stalled.write(`GET /api/stream?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`);
      // The reading client collects the id of every sample event as it arrives.
      const ids: number[] = [];
      let pending = '';
      const reader = await new Promise<ReturnType<typeof request>>((resolve) => {
        const req = request({ port: s.port, host: '127.0.0.1', path: `/api/stream?token=${s.token}` }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            pending += chunk;
            let end: number;
            while ((end = pending.indexOf('\n\n')) >= 0) {
              const block = pending.slice(0, end);
              pending = pending.slice(end + 2);
              const id = /^event: sample\nid: [0-9a-f]+-(\d+)\n/.exec(block)?.[1];
              if (id) ids.push(Number(id));
            }
          });
          resolve(req);
        });
        req.on('error', () => {});
        req.end();
      });
      await expect.poll(() => s.lab.activeStreams()).toBe(2);
      const ticks = 3000;
      for (let i = 0; i < ticks / 100; i++) {
        for (let k = 0; k < 100; k++) s.lab.sampler.tick();
        await new Promise((r) => setTimeout(r, 5)); // let the reader drain
      }
      // The server let go of the stalled one (its unread frames are no longer held) and kept the reader.
      expect(s.lab.activeStreams()).toBe(1);
      await expect.poll(() => ids.length, { timeout: 5000 }).toBe(ticks + 1);
      expect(ids).toEqual(Array.from({ length: ticks + 1 }, (_, i) => i + 1)); // in order, none twice, none missing
      reader.destroy();
      stalled.destroy();
    } finally {
      await s.lab.close();
    }
  });

  test('sends a heartbeat when no tick arrives for a while (hub clock driven by hand)', async () => {
    const clock = manualClock(T0);
    const s = await listen({ source: sim('idle'), autoStart: false, heartbeatMs: 15_000, streamClock: clock });
    try {
      const sse = sseReader(await fetch(`${s.base}/api/stream?token=${s.token}`));
      expect((await sse.next()).event).toBe('hello');
      clock.advance(14_000);
      s.lab.sampler.tick(); // a tick resets the idle time
      expect((await sse.next()).event).toBe('sample');
      // The hub checks every quarter period (3.75 s): the first check 15 s or more after the tick is at 30 s.
      clock.advance(16_000);
      const beat = await sse.next();
      expect(beat.event).toBe('heartbeat');
      expect(beat.data).toBe(String(T0 + 30_000));
      await sse.cancel();
    } finally {
      await s.lab.close();
    }
  });
});

describe('resumeAfter', () => {
  test('resumes only from an id of this run at or before the newest tick', () => {
    expect(resumeAfter('abc1-5', 'abc1', 9)).toBe(5);
    expect(resumeAfter('abc1-9', 'abc1', 9)).toBe(9);
    expect(resumeAfter('abc1-10', 'abc1', 9)).toBeNull(); // ahead: the latest at once
    expect(resumeAfter('ffff-5', 'abc1', 9)).toBeNull(); // another run
    expect(resumeAfter('5', 'abc1', 9)).toBeNull();
    expect(resumeAfter(undefined, 'abc1', 9)).toBeNull();
  });
});
