/** Malformed and garbage requests while a stream is live: clean 4xx answers, and the stream goes on. */
import { describe, expect, test } from 'vitest';
import { connect } from 'node:net';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen, rawRequest, seqOf, sseReader } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');
const sim = (spec = 'straggler') => createSimSource({ spec, startMs: T0, seed: 'stream-test' });

describe('malformed requests', () => {
  test('200 malformed requests get clean 4xx answers while a stream keeps ticking', async () => {
    const s = await listen({ source: sim(), intervalMs: 100, maxBodyBytes: 4096 });
    const auth = `Bearer ${s.token}`;
    try {
      const sse = sseReader(await fetch(`${s.base}/api/stream?token=${s.token}`));
      const before = seqOf((await sse.next()).id);
      const cases: (() => Promise<number>)[] = [
        async () =>
          (
            await fetch(`${s.base}/api/throughput`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: '{"samplesPerSec":',
            })
          ).status,
        async () =>
          (
            await fetch(`${s.base}/api/throughput`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: 'x'.repeat(20_000),
            })
          ).status,
        async () =>
          (
            await fetch(`${s.base}/api/throughput`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: '[1,2,3]',
            })
          ).status,
        async () =>
          (
            await fetch(`${s.base}/api/throughput`, {
              method: 'POST',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: '{"tokensPerSec":"fast"}',
            })
          ).status,
        async () => (await fetch(`${s.base}/api/devices`, { headers: { authorization: 'Bearer' } })).status,
        async () =>
          (await fetch(`${s.base}/api/devices`, { headers: { authorization: `Basic ${'a'.repeat(4000)}` } })).status,
        async () => (await fetch(`${s.base}/api/nonexistent?token=${s.token}`)).status,
        async () => (await fetch(`${s.base}/api/stream?token=${s.token}`, { method: 'DELETE' })).status,
        async () =>
          (await fetch(`${s.base}/api/stream?token=${s.token}&lastEventId=-5`, { method: 'PUT', body: 'x' })).status,
        async () => (await rawRequest(s.port, { path: '/api/health', headers: { Host: '' } })).status,
        async () => (await rawRequest(s.port, { path: `/api/devices?token=%ZZ${s.token}` })).status,
        async () => (await rawRequest(s.port, { path: '/%E0%A4%A', headers: {} })).status,
        async () =>
          (
            await rawRequest(s.port, {
              method: 'POST',
              path: '/api/throughput',
              headers: { authorization: auth, 'content-type': 'application/json', 'content-length': '99999999' },
              body: '{}',
            })
          ).status,
        async () => (await fetch(`${s.base}/metrics`, { method: 'POST', headers: { authorization: auth } })).status,
      ];
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) statuses.push(await cases[i % cases.length]!());
      const bad = statuses.filter((st) => st < 400 || st >= 500);
      expect(bad, `statuses: ${[...new Set(statuses)].join(',')}`).toEqual([]);
      // The stream is still alive and ticking.
      let after = before;
      for (let i = 0; i < 3; i++) after = seqOf((await sse.next()).id);
      expect(after).toBeGreaterThan(before);
      await sse.cancel();
      expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
    } finally {
      await s.lab.close();
    }
  });

  test('a request line of garbage gets 400 from the HTTP parser, and the server goes on', async () => {
    const s = await listen({ source: sim('idle'), autoStart: false });
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = connect(s.port, '127.0.0.1', () => sock.end('\x00\x01GARBAGE \r\n\r\n'));
        let text = '';
        sock.on('data', (d) => (text += d.toString()));
        sock.on('end', () => resolve(text));
        sock.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 400/);
      expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
    } finally {
      await s.lab.close();
    }
  });
});
