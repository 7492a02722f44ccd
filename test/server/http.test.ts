import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthSchema, StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen, rawRequest } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');
const fixedClock = (): (() => number) => {
  let t = T0;
  return () => (t += 500);
};
const sim = (spec = 'compute-bound') => createSimSource({ spec, startMs: T0, seed: 'http-test' });

describe('API authentication', () => {
  test('health needs no token and says the source is simulated', async () => {
    const s = await listen({ source: sim(), autoStart: false });
    try {
      const res = await fetch(`${s.base}/api/health`);
      expect(res.status).toBe(200);
      const health = HealthSchema.parse(await res.json());
      expect(health).toMatchObject({ ok: true, source: 'sim:compute-bound', simulated: true });
    } finally {
      await s.lab.close();
    }
  });

  test('every other API route answers 401 without the token', async () => {
    const s = await listen({ source: sim(), autoStart: false });
    try {
      for (const path of ['/api/devices', '/api/snapshot', '/api/stream', '/metrics', '/api/nope']) {
        const res = await fetch(`${s.base}${path}`);
        expect(res.status, path).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
      const post = await fetch(`${s.base}/api/throughput`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"samplesPerSec":1}',
      });
      expect(post.status).toBe(401);
    } finally {
      await s.lab.close();
    }
  });

  test('a wrong token of the same length is refused; Bearer and ?token= both work', async () => {
    const s = await listen({ source: sim(), autoStart: false });
    try {
      expect(s.token).toMatch(/^[0-9a-f]{32}$/);
      const wrong = s.token.replace(/.$/, (ch) => (ch === '0' ? '1' : '0'));
      const stale = await fetch(`${s.base}/api/devices?token=${wrong}`);
      expect(stale.status).toBe(401);
      expect(((await stale.json()) as { error: string }).error).toMatch(
        /token changed .*open the URL the lab server printed/,
      );
      expect(((await (await fetch(`${s.base}/api/devices`)).json()) as { error: string }).error).toMatch(
        /^Missing token: open the URL/,
      );
      expect((await fetch(`${s.base}/api/devices`, { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(
        401,
      );
      expect((await fetch(`${s.base}/api/devices?token=${s.token}`)).status).toBe(200);
      const res = await fetch(`${s.base}/api/devices`, { headers: { authorization: `Bearer ${s.token}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { devices: unknown[]; simulated: boolean };
      expect(body.devices).toHaveLength(1);
      expect(body.simulated).toBe(true);
    } finally {
      await s.lab.close();
    }
  });
});

describe('Host and Origin checks', () => {
  test('a request naming another host is refused with 403 (DNS rebinding)', async () => {
    const s = await listen({ source: sim(), autoStart: false });
    try {
      const evil = await rawRequest(s.port, { path: `/api/health`, headers: { Host: 'evil.example' } });
      expect(evil.status).toBe(403);
      const evilWithToken = await rawRequest(s.port, {
        path: `/api/devices?token=${s.token}`,
        headers: { Host: 'evil.example:80' },
      });
      expect(evilWithToken.status).toBe(403);
      for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`, `[::1]:${s.port}`]) {
        expect((await rawRequest(s.port, { path: '/api/health', headers: { Host: host } })).status, host).toBe(200);
      }
    } finally {
      await s.lab.close();
    }
  });

  test('a disallowed Origin gets no CORS headers; an allowed one does, with the PNA preflight header', async () => {
    const s = await listen({ source: sim(), autoStart: false, allowOrigins: ['https://saturate.example'] });
    try {
      const bad = await fetch(`${s.base}/api/devices?token=${s.token}`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(bad.status).toBe(403);
      expect(await bad.text()).toMatch(/--allow-origin https:\/\/evil\.example/);
      expect(bad.headers.get('access-control-allow-origin')).toBeNull();
      // A page served by the lab server itself (same origin) is not a cross-origin caller.
      const own = await fetch(`${s.base}/api/devices?token=${s.token}`, { headers: { origin: s.base } });
      expect(own.status).toBe(200);
      const badPreflight = await fetch(`${s.base}/api/devices`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'GET',
          'access-control-request-private-network': 'true',
        },
      });
      expect(badPreflight.status).toBe(403);
      expect(badPreflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(badPreflight.headers.get('access-control-allow-private-network')).toBeNull();

      const preflight = await fetch(`${s.base}/api/stream`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://saturate.example',
          'access-control-request-method': 'GET',
          'access-control-request-private-network': 'true',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://saturate.example');
      expect(preflight.headers.get('access-control-allow-private-network')).toBe('true');
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      const good = await fetch(`${s.base}/api/devices?token=${s.token}`, {
        headers: { origin: 'https://saturate.example' },
      });
      expect(good.headers.get('access-control-allow-origin')).toBe('https://saturate.example');
      expect(good.headers.get('vary')).toMatch(/Origin/);
    } finally {
      await s.lab.close();
    }
  });
});

describe('snapshot, throughput and metrics', () => {
  test('a reported throughput joins the next tick and /metrics, then expires', async () => {
    const now = fixedClock();
    const s = await listen({ source: sim('idle'), autoStart: false, now });
    const auth = { authorization: `Bearer ${s.token}` };
    try {
      expect((await fetch(`${s.base}/api/snapshot`, { headers: auth })).status).toBe(503);
      const post = await fetch(`${s.base}/api/throughput`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ samplesPerSec: 1234.5, label: 'resnet50' }),
      });
      expect(post.status).toBe(200);
      s.lab.sampler.tick();
      const snap = StreamMessageSchema.parse(await (await fetch(`${s.base}/api/snapshot`, { headers: auth })).json());
      expect(snap.throughput).toMatchObject({ samplesPerSec: 1234.5, label: 'resnet50', simulated: false });
      expect(snap.simulated).toBe(true);
      const metrics = await (await fetch(`${s.base}/metrics`, { headers: auth })).text();
      expect(metrics).toMatch(/^saturate_training_samples_per_second 1234\.5$/m);
      expect(metrics).toMatch(
        /^saturate_gpu_utilization_ratio\{gpu="0",uuid="GPU-[^"]+",name="NVIDIA H100 80GB HBM3"\} 0$/m,
      );
      expect(metrics).toMatch(/saturate_gpu_clock_event_reason\{[^}]*reason="GpuIdle"\} 1/);
      expect(metrics).toMatch(/saturate_source_info\{source="sim:idle",simulated="true"/);
      for (let i = 0; i < 25; i++) s.lab.sampler.tick(); // 12.5 s on the fixed clock: the report is stale
      const later = StreamMessageSchema.parse(await (await fetch(`${s.base}/api/snapshot`, { headers: auth })).json());
      expect(later.throughput).toBeNull(); // idle trains nothing, and the report expired
    } finally {
      await s.lab.close();
    }
  });

  test('bad throughput bodies get clean 4xx answers', async () => {
    const s = await listen({ source: sim(), autoStart: false, maxBodyBytes: 1024 });
    const h = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
    try {
      const post = (body: string, headers: Record<string, string> = h) =>
        fetch(`${s.base}/api/throughput`, { method: 'POST', headers, body });
      expect((await post('{nope')).status).toBe(400);
      expect((await post('{}')).status).toBe(422);
      expect((await post('{"samplesPerSec":-1}')).status).toBe(422);
      expect((await post('{"samplesPerSec":1,"extra":true}')).status).toBe(422);
      expect((await post(JSON.stringify({ samplesPerSec: 1, label: 'x'.repeat(5000) }))).status).toBe(413);
      expect(
        (await post('{"samplesPerSec":1}', { authorization: h.authorization, 'content-type': 'text/plain' })).status,
      ).toBe(415);
    } finally {
      await s.lab.close();
    }
  });
});

describe('serving the built site', () => {
  test('index, directory URLs with and without slash, 404 page, content types and sw.js headers', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'dist-'));
    mkdirSync(join(dist, 'cards'));
    mkdirSync(join(dist, '_astro'));
    writeFileSync(join(dist, 'index.html'), '<h1>home</h1>');
    writeFileSync(join(dist, 'cards', 'index.html'), '<h1>cards</h1>');
    writeFileSync(join(dist, '404.html'), '<h1>lost</h1>');
    writeFileSync(join(dist, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    writeFileSync(join(dist, '_astro', 'app.abc123.css'), 'body{}');
    writeFileSync(join(dist, 'manifest.webmanifest'), '{}');
    const s = await listen({ source: sim(), autoStart: false, staticDir: dist });
    try {
      const get = (p: string) => fetch(`${s.base}${p}`);
      const home = await get('/');
      expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await home.text()).toBe('<h1>home</h1>');
      expect(home.headers.get('cache-control')).not.toBe('no-store');
      // The page the printed URL opens carries the token: no cache may keep it.
      const withToken = await get(`/?token=${s.token}`);
      expect(await withToken.text()).toBe('<h1>home</h1>');
      expect(withToken.headers.get('cache-control')).toBe('no-store');
      expect(await (await get('/cards')).text()).toBe('<h1>cards</h1>');
      expect(await (await get('/cards/')).text()).toBe('<h1>cards</h1>');
      const missing = await get('/no/such/page');
      expect(missing.status).toBe(404);
      expect(await missing.text()).toBe('<h1>lost</h1>');
      const sw = await get('/sw.js');
      expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(sw.headers.get('service-worker-allowed')).toBe('/');
      expect(sw.headers.get('cache-control')).toBe('no-cache');
      expect((await get('/_astro/app.abc123.css')).headers.get('cache-control')).toMatch(/immutable/);
      expect((await get('/manifest.webmanifest')).headers.get('content-type')).toMatch(/manifest\+json/);
      // Text goes out compressed as the client accepts, byte-identical once decoded; small and binary files as they are.
      const big = JSON.stringify(
        Array.from({ length: 400 }, (_, i) => ({ id: `q-${i}`, prompt: 'Which reading shows a data-starved GPU?' })),
      );
      writeFileSync(join(dist, 'bank.json'), big);
      writeFileSync(join(dist, 'icon.png'), Buffer.alloc(4096, 7));
      const raw = (p: string, enc: string) => rawRequest(s.port, { path: p, headers: { 'accept-encoding': enc } });
      const br = await raw('/bank.json', 'gzip, deflate, br');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['vary']).toBe('Accept-Encoding');
      expect(brotliDecompressSync(br.bytes).toString()).toBe(big);
      expect(br.bytes.length).toBeLessThan(big.length / 4);
      const gz = await raw('/bank.json', 'gzip;q=1, br;q=0');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.bytes).toString()).toBe(big);
      const plain = await raw('/bank.json', 'identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.bytes.toString()).toBe(big);
      expect((await raw('/icon.png', 'br')).headers['content-encoding']).toBeUndefined();
      expect((await raw('/', 'br')).headers['content-encoding']).toBeUndefined(); // 13 bytes: not worth it
      const traversal = await rawRequest(s.port, { path: '/%2e%2e/%2e%2e/etc/passwd' });
      expect([400, 404]).toContain(traversal.status);
      expect(traversal.body).not.toMatch(/root:/);
      expect((await fetch(`${s.base}/`, { method: 'POST' })).status).toBe(405);
    } finally {
      await s.lab.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });

  test('no other origin can frame anything the server sends, and the CSP restricts nothing else', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'dist-'));
    writeFileSync(join(dist, 'index.html'), '<h1>home</h1><script>document.title = "ran"</script>');
    writeFileSync(join(dist, '404.html'), '<h1>lost</h1>');
    const s = await listen({ source: sim(), autoStart: false, staticDir: dist });
    try {
      const answers = [
        await fetch(`${s.base}/`),
        await fetch(`${s.base}/no/such/page`),
        await fetch(`${s.base}/api/devices`), // 401
        await fetch(`${s.base}/api/health`),
        await fetch(`${s.base}/metrics?token=${s.token}`),
        await fetch(`${s.base}/`, { headers: { host: 'evil.example' } }), // 403
      ];
      for (const res of answers) {
        expect(res.headers.get('x-frame-options'), res.url).toBe('DENY');
        // Only frame-ancestors: the site's inline scripts, styles, workers and fetches load as before.
        expect(res.headers.get('content-security-policy'), res.url).toBe("frame-ancestors 'none'");
        await res.body?.cancel();
      }
      const stream = await fetch(`${s.base}/api/stream?token=${s.token}`);
      expect(stream.headers.get('x-frame-options')).toBe('DENY'); // the SSE answer is written by hand
      await stream.body?.cancel();
      expect(answers[0]!.status).toBe(200);
    } finally {
      await s.lab.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
