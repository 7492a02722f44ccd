/**
 * The sync server's abuse limits with the default rules: rate limits per IP and per account on sign-up,
 * sign-in and push (429 with Retry-After), the body cap answered before the body is read, CORS for the
 * allowed origin only, and the CLI's flags.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseSyncCli } from '../../server/sync/cli.ts';
import { createLimiter, DEFAULT_LIMITS } from '../../server/sync/limits.ts';
import { newSecrets, SyncClient } from './client.ts';
import { sqliteBackend } from './sqlite-backend.ts';
import { ORIGIN, RP_ID, startOn } from './suite.ts';

// Generous: a loaded CI machine runs key generation, signatures and SQLite commits slowly.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'sync-limits-'));
let s: Awaited<ReturnType<typeof startOn>>;
beforeAll(async () => {
  // Default limits; the client's address from X-Forwarded-For so the test can be many addresses.
  s = await startOn(sqliteBackend(dir), { limits: DEFAULT_LIMITS, trustProxy: true });
});
afterAll(async () => {
  await s?.server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const from = (ip: string) => ({ 'x-forwarded-for': `203.0.113.9, ${ip}` });

/** Calls until the first 429; returns how many passed and the 429's Retry-After. */
async function untilLimited(
  call: () => Promise<Response>,
  max: number,
): Promise<{ passed: number; retryAfter: string | null; message: string; headers: Headers }> {
  for (let n = 0; n < max; n++) {
    const res = await call();
    if (res.status === 429) {
      const body = (await res.json()) as { error: { message: string } };
      return {
        passed: n,
        retryAfter: res.headers.get('retry-after'),
        message: body.error.message,
        headers: res.headers,
      };
    }
    await res.arrayBuffer();
  }
  return { passed: max, retryAfter: null, message: '', headers: new Headers() };
}

describe('sync server limits', () => {
  it('sign-up is limited per address: the 11th attempt in a minute gets 429 with Retry-After; another address is not', async () => {
    const c = new SyncClient(s.server.url, ORIGIN, RP_ID);
    const r = await untilLimited(() => c.call('POST', '/signup/options', {}, from('198.51.100.1')), 30);
    expect(r.passed).toBe(DEFAULT_LIMITS.signupPerIp.burst);
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(r.message).toMatch(/Too many new accounts from this address: try again in \d+ s/);
    // The site's page can read the refusal and its Retry-After (CORS on errors too).
    expect(r.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(r.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect((await c.call('POST', '/signup/options', {}, from('198.51.100.2'))).status).toBe(200);
    // A minute later the address may try again.
    s.clock.t += 60_000;
    expect((await c.call('POST', '/signup/options', {}, from('198.51.100.1'))).status).toBe(200);
  });

  it('sign-in (passkey and recovery key) is limited per address', async () => {
    const c = new SyncClient(s.server.url, ORIGIN, RP_ID);
    const r = await untilLimited(
      () => c.call('POST', '/recovery/signin', { recoveryAuth: 'A'.repeat(43) }, from('198.51.100.3')),
      100,
    );
    expect(r.passed).toBe(DEFAULT_LIMITS.signinPerIp.burst);
    expect((await c.call('POST', '/signin/options', {}, from('198.51.100.3'))).status).toBe(429);
  });

  it('push is limited per account (across addresses) and per address (across accounts)', async () => {
    s.clock.t += 10 * 60_000;
    const a = new SyncClient(s.server.url, ORIGIN, RP_ID);
    await a.signup(await newSecrets());
    let n = 0;
    const perAccount = await untilLimited(
      () => a.call('POST', '/push', { items: [] }, from(`192.0.2.${n++ % 200}`)),
      200,
    );
    expect(perAccount.passed).toBe(DEFAULT_LIMITS.pushPerAccount.burst);
    expect(perAccount.message).toMatch(/pushes for this account/);

    s.clock.t += 10 * 60_000;
    const ip = from('198.51.100.7');
    const accounts: SyncClient[] = [];
    for (let k = 0; k < 3; k++) {
      const c = new SyncClient(s.server.url, ORIGIN, RP_ID);
      await c.signup(await newSecrets());
      accounts.push(c);
    }
    let k = 0;
    const perIp = await untilLimited(() => accounts[k++ % 3]!.call('POST', '/push', { items: [] }, ip), 400);
    expect(perIp.passed).toBe(DEFAULT_LIMITS.pushPerIp.burst);
    expect(perIp.message).toMatch(/pushes from this address/);
  });

  it('a body declared over the cap gets 413 at once, before the server reads it', async () => {
    const { port } = s.server;
    const started = Date.now();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/push',
          headers: {
            'content-type': 'application/json',
            'content-length': String(100 * 1024 * 1024),
            authorization: `Bearer ${'A'.repeat(43)}`,
          },
        },
        (res) => {
          let body = '';
          res.on('data', (b: Buffer) => (body += b.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"items":['); // 10 bytes of the 100 MiB announced; the rest never comes
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatch(/larger than/);
    expect(Date.now() - started).toBeLessThan(10_000); // not the 30 s request timeout
  });

  it('answers CORS preflights for the allowed origin only, and refuses any other origin with 403', async () => {
    const ok = await fetch(`${s.server.url}/v1/push`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    for (const method of ['OPTIONS', 'POST']) {
      const bad = await fetch(`${s.server.url}/v1/signin/options`, {
        method,
        headers: { origin: 'https://evil.example' },
      });
      expect(bad.status).toBe(403);
      expect(bad.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('a token bucket refills at its rate', () => {
    const l = createLimiter({ burst: 2, perMinute: 60 });
    expect([l.take('k', 0), l.take('k', 0), l.take('k', 0)]).toEqual([0, 0, 1]);
    expect(l.take('k', 1000)).toBe(0);
  });
});

describe('sync server CLI', () => {
  it('parses its flags and refuses bad ones with a clear message', () => {
    const o = parseSyncCli([
      '--port',
      '8791',
      '--data',
      './d',
      '--allow-origin',
      'https://learn.example.org',
      '--quota-bytes',
      '32M',
    ]);
    expect(o).toMatchObject({
      port: 8791,
      data: './d',
      rpId: 'learn.example.org',
      quotaBytes: 32 * 1024 * 1024,
      database: null,
    });
    expect(() => parseSyncCli(['--port', 'x'])).toThrow(/--port needs a whole number/);
    expect(() => parseSyncCli(['--rp-id', '127.0.0.1'])).toThrow(/IP address, which WebAuthn refuses/);
    expect(() => parseSyncCli(['--allow-origin', 'http://127.0.0.1:4321'])).toThrow(/IP address/);
    expect(() => parseSyncCli(['--allow-origin', 'https://a.example', '--rp-id', 'b.example'])).toThrow(
      /not on --rp-id/,
    );
    expect(() => parseSyncCli(['--database', 'mysql://x'])).toThrow(/postgres:\/\//);
    expect(() => parseSyncCli(['--quota-bytes', 'lots'])).toThrow(/size such as/);
    expect(() => parseSyncCli(['--frobnicate'])).toThrow(/Unknown option/);
  });

  it('npm run sync-server with a bad flag exits 1 with the message and the usage', () => {
    const r = spawnSync(process.execPath, ['server/sync/main.ts', '--port', 'eighty'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--port needs a whole number/);
    expect(r.stderr).toMatch(/Usage: npm run sync-server/);
  });
});
