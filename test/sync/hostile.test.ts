/**
 * The sync server under hostile input (SQLite): 200 seeded random requests, replayed challenges, another
 * account's cursor and passkey, forged and expired sessions, oversized pushes. Each gets a clear error in the
 * protocol's shape, never a 500; the victim's data stays whole and never shows in the attacker's answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SyncErrorSchema, type StoredItem } from '../../src/protocol/sync.ts';
import { softAuthenticator, type SoftPasskey } from './authenticator.ts';
import { newSecrets, plainEvents, sealEvent, SyncClient } from './client.ts';
import { sqliteBackend } from './sqlite-backend.ts';
import { ORIGIN, RP_ID, startOn } from './suite.ts';

/** mulberry32: a small seeded PRNG, so a failure replays. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Generous: a loaded CI machine runs key generation, signatures and SQLite commits slowly.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'sync-hostile-'));
let s: Awaited<ReturnType<typeof startOn>>;
let victim: SyncClient;
let victimPasskey: SoftPasskey;
let victimItems: StoredItem[];
let victimCredential: string;
beforeAll(async () => {
  s = await startOn(sqliteBackend(dir), { quotaBytes: 200_000 });
  const secrets = await newSecrets();
  victim = s.client();
  const { passkey, signedIn } = await victim.signup(secrets);
  victimPasskey = passkey;
  victimCredential = signedIn.credentialId!;
  await victim.push(await Promise.all(plainEvents(50, 'victim').map((e) => sealEvent(secrets, e))));
  victimItems = await victim.pullAll();
});
afterAll(async () => {
  await s?.server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Asserts an error answer: the status, and a `SyncError` body whose message says something. */
async function expectError(res: Response, status: number, message?: RegExp): Promise<string> {
  expect(res.status).toBe(status);
  const body = SyncErrorSchema.parse(await res.json());
  expect(body.error.message.length).toBeGreaterThan(15);
  if (message) expect(body.error.message).toMatch(message);
  return body.error.message;
}

/** The victim's data, read with the victim's own session: the same items as before, nothing more or less. */
async function expectVictimWhole(): Promise<void> {
  const again = new SyncClient(s.server.url, ORIGIN, RP_ID);
  again.token = victim.token;
  expect(await again.pullAll()).toEqual(victimItems);
}

describe('sync server, hostile input', () => {
  it('200 seeded random requests each get a clear answer, never a 500, and never show the victim’s items', async () => {
    const attacker = s.client();
    await attacker.signup(await newSecrets());
    const rand = rng(0x5a7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const paths = [
      '/v1/push',
      '/v1/pull',
      '/v1/pull?after=0',
      '/v1/pull?after=-1',
      '/v1/pull?after=99999999999',
      '/v1/pull?limit=0',
      '/v1/pull?after=1e3',
      '/v1/status',
      '/v1/signout',
      '/v1/account',
      '/v1/keys/prf',
      '/v1/signup/options',
      '/v1/signup/verify',
      '/v1/signin/options',
      '/v1/signin/verify',
      '/v1/recovery/signin',
      '/v1/../etc/passwd',
      '/v1/push?x=%00',
      '/nope',
      '/health',
      '/v1/%ff',
    ];
    const bodies = [
      undefined,
      '',
      '{',
      'null',
      '[]',
      '{"items":[]}',
      '{"items":"x"}',
      JSON.stringify({ items: [{ id: 'x' }] }),
      JSON.stringify({ items: [{ id: 'A'.repeat(22), kind: 'event', iv: 'A'.repeat(16), data: '!!' }] }),
      JSON.stringify({ items: [{ id: 'A'.repeat(22), kind: 'record', iv: 'A'.repeat(16), data: 'QQ' }] }),
      JSON.stringify({ items: [], drop: victimItems.slice(0, 3).map((i) => i.id) }),
      JSON.stringify({ challengeId: 'A'.repeat(24), response: {} }),
      JSON.stringify({ recoveryAuth: 'A'.repeat(43) }),
      JSON.stringify({ credentialId: victimCredential, wrapped: { iv: 'A'.repeat(16), data: 'A' } }),
      JSON.stringify({ __proto__: { polluted: true }, items: [] }),
      'x'.repeat(70_000),
    ];
    const auths = [
      undefined,
      `Bearer ${attacker.token}`,
      `Bearer ${'A'.repeat(43)}`,
      'Bearer',
      'Basic Zm9vOmJhcg==',
      `Bearer ${attacker.token}x`,
    ];
    const origins = [undefined, ORIGIN, 'http://evil.example', 'null'];
    const allowed = new Set([200, 204, 400, 401, 403, 404, 409, 413, 415, 429]);
    for (let n = 0; n < 200; n++) {
      const method = pick(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
      const path = pick(paths);
      const body = method === 'GET' || method === 'OPTIONS' ? undefined : pick(bodies);
      const headers: Record<string, string> = {};
      const auth = pick(auths);
      const origin = pick(origins);
      if (auth) headers['authorization'] = auth;
      if (origin) headers['origin'] = origin;
      if (body !== undefined)
        headers['content-type'] = pick(['application/json', 'text/plain', 'application/json; charset=utf-8']);
      // Never sign the attacker out or delete it mid-run: those work (200) and end the run's session.
      if ((path === '/v1/signout' || path === '/v1/account') && auth === `Bearer ${attacker.token}`) continue;
      const res = await fetch(`${s.server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      expect(allowed.has(res.status), `${method} ${path} → ${res.status}: ${text}`).toBe(true);
      if (res.status >= 400 && text) {
        const parsed = SyncErrorSchema.safeParse(JSON.parse(text));
        expect(parsed.success, `${method} ${path} → ${text}`).toBe(true);
      }
      for (const item of victimItems.slice(0, 5)) expect(text.includes(item.id)).toBe(false);
    }
    await expectVictimWhole();
  });

  it('a replayed or mismatched challenge gets 409', async () => {
    const c = s.client();
    const opts = await c.json<{ challengeId: string; options: never }>('POST', '/signup/options', {});
    const secrets = await newSecrets();
    const { response } = softAuthenticator(ORIGIN).create(opts.options);
    const body = {
      challengeId: opts.challengeId,
      response,
      recoveryAuth: 'C'.repeat(43),
      recoveryWrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
    };
    expect((await c.call('POST', '/signup/verify', body)).status).toBe(200);
    await expectError(await c.call('POST', '/signup/verify', body), 409, /already used/);
    // A sign-in challenge answered as a sign-up.
    const signin = await c.json<{ challengeId: string; options: { challenge: string } }>('POST', '/signin/options', {});
    await expectError(await c.call('POST', '/signup/verify', { ...body, challengeId: signin.challengeId }), 409);
    void secrets;
  });

  it('another account’s cursor, passkey key or credential gets an error and reveals nothing', async () => {
    const attacker = s.client();
    const { signedIn } = await attacker.signup(await newSecrets());
    // The victim's cursor is ahead of the attacker's account.
    await expectError(await attacker.call('GET', `/pull?after=${victim.cursor}`), 400, /cursor/);
    const own = await attacker.pullAll();
    expect(own).toEqual([]);
    // Storing a PRF-wrapped key under the victim's credential.
    await expectError(
      await attacker.call('PUT', '/keys/prf', {
        credentialId: victimCredential,
        wrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
      }),
      404,
      /not one of this account/,
    );
    // The victim's passkey, its user handle rewritten to the attacker's account.
    const c = s.client();
    const opts = await c.json<{ challengeId: string; options: { challenge: string } }>('POST', '/signin/options', {});
    const response = softAuthenticator(ORIGIN).get(
      { ...victimPasskey, userHandle: signedIn.accountId },
      opts.options,
      RP_ID,
    );
    await expectError(await c.call('POST', '/signin/verify', { challengeId: opts.challengeId, response }), 400);
    // Dropping the victim's items with the attacker's session drops nothing.
    expect(await attacker.push([], victimItems.map((i) => i.id).slice(0, 10))).toMatchObject({ dropped: 0 });
    // Deleting "the account" with the attacker's session deletes the attacker's only.
    expect((await attacker.call('DELETE', '/account')).status).toBe(200);
    await expectVictimWhole();
  });

  it('a forged, malformed or expired session gets 401 that says to sign in', async () => {
    const c = s.client();
    c.token = 'A'.repeat(43);
    await expectError(await c.call('GET', '/pull'), 401, /sign in again/);
    c.token = null;
    await expectError(await c.call('POST', '/push', { items: [] }), 401, /Sign in first/);
    const d = s.client();
    await d.signup(await newSecrets());
    s.clock.t += 181 * 24 * 3600_000;
    await expectError(await d.call('GET', '/status'), 401, /expired/);
  });

  it('oversized pushes get 413 (or 400 for too many items) and store nothing', async () => {
    const secrets = await newSecrets();
    const a = s.client();
    await a.signup(secrets);
    const big = 'A'.repeat(87_000);
    const item = (n: number) => ({
      id: `oversize${String(n).padStart(14, '0')}`,
      kind: 'event' as const,
      iv: 'A'.repeat(16),
      data: big,
    });
    // Over the quota (200,000 bytes here): 3 items of 87 KB.
    await expectError(await a.call('POST', '/push', { items: [item(1), item(2), item(3)] }), 413, /quota/);
    expect(await a.json<{ items: number; usedBytes: number }>('GET', '/status')).toMatchObject({
      items: 0,
      usedBytes: 0,
    });
    // A body over 8 MiB.
    await expectError(
      await a.call('POST', '/push', { items: Array.from({ length: 100 }, (_, n) => item(n)) }),
      413,
      /larger than/,
    );
    // More items than the protocol allows in one push.
    const many = Array.from({ length: 5001 }, (_, n) => ({ ...item(n), data: 'QQ' }));
    await expectError(await a.call('POST', '/push', { items: many }), 400, /items/);
    // One item's ciphertext over 64 KiB.
    await expectError(
      await a.call('POST', '/push', { items: [{ ...item(9), data: 'A'.repeat(90_000) }] }),
      400,
      /data/,
    );
    expect(await a.json<{ items: number }>('GET', '/status')).toMatchObject({ items: 0 });
    // What fits is stored.
    expect(await a.push([item(1)])).toMatchObject({ accepted: 1 });
  });
});
