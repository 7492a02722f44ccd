/** Each guard middleware on its own, through Hono's `app.request()` (no socket). */
import { describe, expect, test } from 'vitest';
import { Hono } from 'hono';
import { hostGuard, originGuard, securityHeaders, tokenGuard } from '../../server/guards.ts';

const ok = (app: Hono): Hono => app.all('*', (c) => c.text('ok'));

describe('hostGuard', () => {
  const app = ok(new Hono().use('*', securityHeaders()).use('*', hostGuard('127.0.0.1')));
  test('refuses a Host that does not name this machine, with what to use instead', async () => {
    const res = await app.request('/api/health', { headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/127\.0\.0\.1/);
    expect(res.headers.get('x-frame-options'), 'a refusal cannot be framed either').toBe('DENY');
  });
  test('passes loopback names; every answer carries the security headers, anti-framing included', async () => {
    for (const host of ['127.0.0.1:8790', 'localhost', '[::1]:1']) {
      const res = await app.request('/', { headers: { host } });
      expect(res.status, host).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    }
  });
});

describe('originGuard', () => {
  const app = ok(new Hono().use('*', originGuard(new Set(['https://saturate.example']))));
  const req = (path: string, origin: string, init: RequestInit = {}) =>
    app.request(`http://127.0.0.1:8790${path}`, {
      ...init,
      headers: { host: '127.0.0.1:8790', origin, ...init.headers },
    });

  test('an API call from a page of another origin is refused, naming the flag that allows it', async () => {
    const res = await req('/api/devices', 'https://evil.example');
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/--allow-origin https:\/\/evil\.example/);
    expect((await req('/metrics', 'https://evil.example')).status).toBe(403);
    expect((await req('/index.html', 'https://evil.example')).status).toBe(200); // the site is public
  });
  test('same-origin, null-origin and allowed callers pass; only the allowed one gets CORS headers', async () => {
    const own = await req('/api/devices', 'http://127.0.0.1:8790');
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    expect((await req('/api/devices', 'null')).status).toBe(200);
    const allowed = await req('/api/devices', 'https://saturate.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://saturate.example');
    expect(allowed.headers.get('vary')).toBe('Origin');
  });
  test('preflights: 204 with Private Network Access for the allowed origin, 403 for others', async () => {
    const headers = { 'access-control-request-method': 'GET', 'access-control-request-private-network': 'true' };
    const good = await req('/api/stream', 'https://saturate.example', { method: 'OPTIONS', headers });
    expect(good.status).toBe(204);
    expect(good.headers.get('access-control-allow-private-network')).toBe('true');
    expect(good.headers.get('access-control-allow-headers')).toMatch(/Last-Event-ID/);
    const bad = await req('/api/stream', 'https://evil.example', { method: 'OPTIONS', headers });
    expect(bad.status).toBe(403);
    expect(bad.headers.get('access-control-allow-private-network')).toBeNull();
  });
});

describe('tokenGuard', () => {
  let token = 'a'.repeat(32);
  const app = ok(
    new Hono().use(
      '*',
      tokenGuard(() => token),
    ),
  );
  test('401 with WWW-Authenticate without the token or with a wrong one', async () => {
    for (const init of [{}, { headers: { authorization: `Bearer ${'b'.repeat(32)}` } }]) {
      const res = await app.request('http://127.0.0.1/api/devices', init);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
  test('Bearer or ?token= passes, and what passes is not cacheable; the token is read per request', async () => {
    const res = await app.request(`http://127.0.0.1/api/devices?token=${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const bearer = await app.request('http://127.0.0.1/x', { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    token = 'c'.repeat(32);
    expect((await app.request(`http://127.0.0.1/x?token=${'a'.repeat(32)}`)).status).toBe(401);
  });
});
