/**
 * The sync server end to end over HTTP, one suite run on each database (sqlite.test.ts, postgres.test.ts):
 * passkey sign-up and sign-in with a software authenticator, recovery, push and pull of encrypted items,
 * dedupe, record versions, challenges single use and expiring, sessions, account deletion, and that the
 * database holds no plaintext.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredItemSchema } from '../../src/protocol/sync.ts';
import { UNLIMITED } from '../../server/sync/limits.ts';
import { startSyncServer, type RunningSyncServer, type StartOptions } from '../../server/sync/server.ts';
import type { SyncStore } from '../../server/sync/store.ts';
import { softAuthenticator } from './authenticator.ts';
import { newSecrets, openEvent, openEvents, plainEvents, sealBatch, sealEvent, SyncClient } from './client.ts';
import type { SyncItem } from '../../src/protocol/sync.ts';

/** What a database gives the suite. */
export interface Backend {
  open(): Promise<SyncStore>;
  /** Rows of `accountId` in every table (tables without an account column: rows naming it). */
  rows(accountId: string): Promise<Record<string, number>>;
  /** The raw database as bytes: the SQLite file (with its WAL), or a pg_dump. */
  raw(): Promise<Buffer>;
}

export const ORIGIN = 'http://localhost:4321';
export const RP_ID = 'localhost';

/** Starts a server on `backend` with a movable clock. */
export async function startOn(backend: Backend, extra: Partial<StartOptions> = {}) {
  const clock = { t: Date.now() };
  const server = await startSyncServer({
    port: 0,
    store: await backend.open(),
    allowOrigin: ORIGIN,
    rpId: RP_ID,
    limits: UNLIMITED,
    now: () => clock.t,
    log: () => {},
    ...extra,
  });
  return { server, clock, client: () => new SyncClient(server.url, ORIGIN, RP_ID) };
}

/** Registers the suite for one backend. */
export function syncSuite(name: string, backend: () => Backend): void {
  describe(`sync server on ${name}`, () => {
    let s: Awaited<ReturnType<typeof startOn>>;
    let b: Backend;
    let server: RunningSyncServer;
    beforeAll(async () => {
      b = backend();
      s = await startOn(b);
      server = s.server;
    });
    afterAll(async () => server?.stop());

    it('a learner signs up with a passkey, pushes encrypted events, and a second device signs in with the same passkey and gets them all', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      const { passkey, signedIn } = await a.signup(secrets);
      expect(signedIn.keys.recovery.data.length).toBeGreaterThan(0);
      const events = plainEvents(30, 'signup');
      const r1 = await a.push(await Promise.all(events.map((e) => sealEvent(secrets, e))));
      expect(r1).toMatchObject({ accepted: 30, duplicates: 0 });

      const bDev = s.client();
      const again = await bDev.signin(passkey);
      expect(again.accountId).toBe(signedIn.accountId);
      expect(again.credentialId).toBe(signedIn.credentialId);
      const got = await bDev.pullAll(7);
      for (const item of got) StoredItemSchema.parse(item);
      const opened = await Promise.all(got.map((i) => openEvent(secrets, i)));
      expect(opened.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
      const status = await bDev.json<{ devices: number; items: number }>('GET', '/status');
      expect(status).toMatchObject({ devices: 2, items: 30 });
    });

    it('the same event pushed twice (or by two devices) is stored once; record versions stay until dropped', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      await a.signup(secrets);
      const [e] = await Promise.all(plainEvents(1, 'dup').map((x) => sealEvent(secrets, x)));
      expect(await a.push([e!, e!])).toMatchObject({ accepted: 1, duplicates: 1 });
      expect(await a.push([e!])).toMatchObject({ accepted: 0, duplicates: 1 });
      const v1 = {
        id: 'recordversion0000001',
        kind: 'record' as const,
        key: 'rhythmkey00000000001',
        iv: 'AAAAAAAAAAAAAAAA',
        data: 'djE',
      };
      const v2 = { ...v1, id: 'recordversion0000002', data: 'djI' };
      expect(await a.push([v1, v2])).toMatchObject({ accepted: 2 });
      expect((await a.pullAll()).map((i) => i.id)).toEqual([e!.id, v1.id, v2.id]);
      const dropped = await a.push([], [v1.id, 'notstoreditem0000001']);
      expect(dropped.dropped).toBe(1); // an unknown id is ignored
      const fresh = s.client();
      fresh.token = a.token;
      expect((await fresh.pullAll()).map((i) => i.id)).toEqual([e!.id, v2.id]);
    });

    it('a push that stores small event items again, packed, drops them in its transaction: the quota gets their bytes back, a second device doing the same at once loses nothing, and a new device pulls the batch alone', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      const { passkey } = await a.signup(secrets);
      const events = plainEvents(6, 'compact');
      const small = await Promise.all(events.map((e) => sealEvent(secrets, e)));
      const bytes = (items: SyncItem[]) => items.reduce((n, i) => n + i.id.length + i.iv.length + i.data.length, 0);
      expect(await a.push(small)).toMatchObject({ accepted: 6, usedBytes: bytes(small) });
      const batch = await sealBatch(secrets, events);
      const packed = await a.push(
        [batch],
        small.map((i) => i.id),
      );
      expect(packed).toMatchObject({ accepted: 1, dropped: 6, usedBytes: bytes([batch]) });
      // Device B packed the same events at the same time: the same batch id (a duplicate), the drops already done.
      const b2 = s.client();
      await b2.signin(passkey);
      const same = await sealBatch(secrets, [...events].reverse());
      expect(same.id).toBe(batch.id);
      expect(
        await b2.push(
          [same],
          small.map((i) => i.id),
        ),
      ).toMatchObject({
        accepted: 0,
        duplicates: 1,
        dropped: 0,
        usedBytes: bytes([batch]),
      });
      const c = s.client();
      await c.signin(passkey);
      const got = await c.pullAll();
      expect(got.map((i) => i.id)).toEqual([batch.id]);
      expect((await openEvents(secrets, got[0]!)).map((e) => e.id)).toEqual(events.map((e) => e.id));
      expect(await c.json('GET', '/status')).toMatchObject({ items: 1, usedBytes: bytes([batch]) });
    });

    it('signs in with the recovery key alone, and refuses a wrong one', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      const { signedIn } = await a.signup(secrets);
      const c = s.client();
      const back = await c.recover(secrets.r);
      expect(back.accountId).toBe(signedIn.accountId);
      expect(back.keys.recovery).toEqual(signedIn.keys.recovery);
      const wrong = await s.client().call('POST', '/recovery/signin', { recoveryAuth: 'A'.repeat(43) });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/recovery key/);
    });

    it('a challenge answers once: a replayed sign-in gets 409, and so does one past 2 minutes', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      const { passkey } = await a.signup(secrets);
      const c = s.client();
      const opts = await c.json<{ challengeId: string; options: { challenge: string } }>('POST', '/signin/options', {});
      const response = softAuthenticator(ORIGIN).get(passkey, opts.options, RP_ID);
      expect((await c.call('POST', '/signin/verify', { challengeId: opts.challengeId, response })).status).toBe(200);
      const replay = await c.call('POST', '/signin/verify', { challengeId: opts.challengeId, response });
      expect(replay.status).toBe(409);
      expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(
        /already used or has expired/,
      );

      const late = await c.json<{ challengeId: string; options: { challenge: string } }>('POST', '/signin/options', {});
      s.clock.t += 2 * 60_000 + 1;
      const lateRes = await c.call('POST', '/signin/verify', {
        challengeId: late.challengeId,
        response: softAuthenticator(ORIGIN).get(passkey, late.options, RP_ID),
      });
      expect(lateRes.status).toBe(409);
    });

    it('refuses a passkey answer made for another origin or another RP ID', async () => {
      const secrets = await newSecrets();
      const { passkey } = await s.client().signup(secrets);
      for (const bad of [{ origin: 'http://localhost:9999' }, { rpId: 'evil.example' }]) {
        const c = s.client();
        const opts = await c.json<{ challengeId: string; options: { challenge: string } }>(
          'POST',
          '/signin/options',
          {},
        );
        const response = softAuthenticator(ORIGIN).get(
          passkey,
          { ...opts.options, ...(bad.rpId ? { rpId: bad.rpId } : {}) },
          RP_ID,
          bad,
        );
        const res = await c.call('POST', '/signin/verify', { challengeId: opts.challengeId, response });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
          /passkey could not be checked/i,
        );
      }
      const c = s.client();
      const opts = await c.json<{ challengeId: string; options: never }>('POST', '/signup/options', {});
      const { response } = softAuthenticator(ORIGIN).create(opts.options, { origin: 'http://localhost:9999' });
      const res = await c.call('POST', '/signup/verify', {
        challengeId: opts.challengeId,
        response,
        recoveryAuth: 'B'.repeat(43),
        recoveryWrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
      });
      expect(res.status).toBe(400);
    });

    it('a session ends at sign-out and after 180 days; other devices keep theirs', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      const { passkey } = await a.signup(secrets);
      const other = s.client();
      await other.signin(passkey);
      expect((await a.call('POST', '/signout')).status).toBe(200);
      expect((await a.call('GET', '/status')).status).toBe(401);
      expect((await other.call('GET', '/status')).status).toBe(200);
      s.clock.t += 181 * 24 * 3600_000;
      const expired = await other.call('GET', '/status');
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { error: { message: string } }).error.message).toMatch(/sign in again/);
      const c = s.client();
      await c.signin(passkey);
      expect((await c.call('GET', '/status')).status).toBe(200);
    });

    it('deleting the account removes everything of it, in every table, and leaves other accounts whole', async () => {
      const keep = await newSecrets();
      const k = s.client();
      await k.signup(keep);
      await k.push(await Promise.all(plainEvents(5, 'keep').map((e) => sealEvent(keep, e))));
      const secrets = await newSecrets();
      const a = s.client();
      const { passkey, signedIn } = await a.signup(secrets);
      await a.push(await Promise.all(plainEvents(20, 'gone').map((e) => sealEvent(secrets, e))));
      await a.json('PUT', '/keys/prf', {
        credentialId: signedIn.credentialId,
        wrapped: { iv: 'A'.repeat(16), data: 'B'.repeat(64) },
      });
      await s.client().json('POST', '/signin/options', {});
      const before = await b.rows(signedIn.accountId);
      expect(before['items']).toBe(20);
      expect(before['prf_keys']).toBe(1);
      expect((await a.call('DELETE', '/account')).status).toBe(200);
      expect(Object.values(await b.rows(signedIn.accountId)).every((n) => n === 0)).toBe(true);
      expect((await a.call('GET', '/status')).status).toBe(401);
      const c = s.client();
      const opts = await c.json<{ challengeId: string; options: { challenge: string } }>('POST', '/signin/options', {});
      const res = await c.call('POST', '/signin/verify', {
        challengeId: opts.challengeId,
        response: softAuthenticator(ORIGIN).get(passkey, opts.options, RP_ID),
      });
      expect(res.status).toBe(401);
      expect(
        (
          await s.client().call('POST', '/recovery/signin', {
            recoveryAuth: await (await import('./client.ts')).recoveryAuth(secrets.r),
          })
        ).status,
      ).toBe(401);
      expect(await k.json<{ items: number }>('GET', '/status')).toMatchObject({ items: 5 });
    });

    it('after a history has synced, the database holds no card id, question id, answer or answer time in clear', async () => {
      const secrets = await newSecrets();
      const a = s.client();
      await a.signup(secrets);
      const events = plainEvents(200, 'secret');
      await a.push(await Promise.all(events.map((e) => sealEvent(secrets, e))));
      const raw = (await b.raw()).toString('latin1');
      // The dump is real: it holds the account id.
      expect(raw).toContain(a.accountId!);
      for (const e of events.slice(0, 50))
        for (const v of [e.id, e.cardId, e.questionId, e.answer, e.at]) expect(raw.includes(v), v).toBe(false);
      expect(raw.includes('card-secret-occupancy')).toBe(false);
      expect(raw.includes('bank-conflict')).toBe(false);
    });
  });
}
