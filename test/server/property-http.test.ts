/**
 * Property-based hostile input for the lab server: any method, path, header set and body gets a
 * clean answer (never a 5xx, never data without the token), and the live stream keeps ticking.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen, rawRequest, seqOf, sseReader } from './helpers.ts';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const ROUTES = [
  '/api/health',
  '/api/devices',
  '/api/snapshot',
  '/api/stream',
  '/api/throughput',
  '/metrics',
  '/api/',
  '/',
  '/nope',
];
/** Header names Node's client accepts, with values of printable ASCII (what a raw client can send). */
const headerName = fc.constantFrom(
  'Authorization',
  'Content-Type',
  'Origin',
  'Last-Event-ID',
  'X-Forwarded-For',
  'Cookie',
  'Accept',
  'Content-Encoding',
);
const headerValue = fc.string({ maxLength: 200 }).map((v) => v.replace(/[^\x20-\x7e]/g, ''));

describe('hostile requests (fast-check)', () => {
  test(
    '200 random requests: no 5xx, no data without the token, and streaming goes on',
    { timeout: 120_000 },
    async () => {
      const source = createSimSource({
        spec: 'compute-bound',
        startMs: Date.parse('2026-03-29T01:30:00Z'),
        seed: 'prop',
      });
      const s = await listen({ source, intervalMs: 100, maxBodyBytes: 16_384 });
      try {
        const stream = sseReader(await fetch(`${s.base}/api/stream?token=${s.token}`));
        const first = seqOf((await stream.next()).id);
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...METHODS),
            fc.constantFrom(...ROUTES),
            fc.string({ maxLength: 40 }),
            fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
            fc.oneof(
              fc.constant(undefined),
              fc.string({ maxLength: 400 }),
              fc.json(),
              fc.uint8Array({ maxLength: 40_000 }).map((b) => Buffer.from(b)),
            ),
            async (method, route, suffix, headers, body) => {
              const path = `${route}${encodeURI(suffix).replace(/#/g, '%23')}`;
              const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
              const res = await rawRequest(s.port, { method, path, headers, ...(sendsBody ? { body } : {}) });
              expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
              expect(res.status, `${method} ${path}`).toBeLessThan(500);
              // No token was sent in the URL or (valid) header: nothing but health may answer 2xx with data.
              if (
                res.status < 300 &&
                path.startsWith('/api/') &&
                !path.startsWith('/api/health') &&
                method !== 'OPTIONS'
              ) {
                expect(headers['Authorization'] ?? '').toMatch(new RegExp(s.token));
              }
            },
          ),
          { numRuns: 200, seed: 20261130 },
        );
        // The stream kept ticking through all of it: the next ticks follow the first without a gap.
        let last = first;
        for (let i = 0; i < 5; i++) {
          const ev = await stream.next();
          if (ev.event !== 'sample') continue;
          expect(seqOf(ev.id)).toBe(last + 1);
          last = seqOf(ev.id);
        }
        await stream.cancel();
      } finally {
        await s.lab.close();
      }
    },
  );
});
