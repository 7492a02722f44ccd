/**
 * One sync, end to end in Node: two devices, each with its own real progress store (fake IndexedDB) and sync state
 * (IndexedDB, account keys as non-extractable CryptoKeys), against the real sync server (server/sync/, SQLite in a
 * temp folder); the account is made by the server's tests' software passkey (test/sync/authenticator.ts). The devices
 * and the server are made in sync-devices.ts.
 */
import 'fake-indexeddb/auto';
import { describe, expect, test } from 'vitest';
import { undoLast } from '../../src/store/progress.ts';
import { accountKeys, newSecret } from '../../src/lib/sync/keys.ts';
import { syncOnce } from '../../src/client/sync/engine.ts';
import { SyncApiError } from '../../src/client/sync/api.ts';
import { createSyncStore, readAccountKeys, saveSignIn } from '../../src/store/sync-state.ts';
import { decryptItem, encryptItem } from '../../src/lib/sync/items.ts';
import type { StoredItem } from '../../src/protocol/sync.ts';
import { T0 } from './store-helpers.ts';
import { device, realServer } from './sync-devices.ts';

describe('syncOnce', () => {
  test('the account keys survive IndexedDB as non-extractable CryptoKeys', async () => {
    const store = createSyncStore(`keys-${Math.random()}`);
    await saveSignIn(
      {
        session: { serverUrl: 'x', accountId: 'y', token: 'z', expiresAt: 1 },
        keys: await accountKeys(newSecret()),
        local: null,
      },
      store,
    );
    const keys = await readAccountKeys(store);
    expect(keys?.enc.extractable).toBe(false);
    expect(keys?.enc.algorithm.name).toBe('AES-GCM');
  });

  test('two devices that answered offline end with the union of their answers, equal on both', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    const b = await device(server, 'B');
    for (let i = 0; i < 30; i++) await a.answer(`qa-${i}`, T0 + i * 1000);
    // The report counts answers sent (what the page's sync status tells), not the items they were packed into.
    expect((await syncOnce(a.deps)).pushed).toBeGreaterThanOrEqual(30);
    await syncOnce(b.deps);
    expect(b.progress.snapshot().answers).toHaveLength(30);
    server.setOffline(true);
    for (let i = 0; i < 5; i++) await a.answer(`qa2-${i}`, T0 + 100_000 + i);
    for (let i = 0; i < 7; i++) await b.answer(`qb-${i}`, T0 + 200_000 + i);
    await expect(syncOnce(a.deps)).rejects.toThrow(SyncApiError);
    server.setOffline(false);
    await syncOnce(a.deps);
    await syncOnce(b.deps);
    await syncOnce(a.deps);
    const ids = (p: typeof a) => p.progress.snapshot().events.map((e) => e.id);
    expect(a.progress.snapshot().answers).toHaveLength(42);
    expect(ids(b)).toEqual(ids(a));
    // Nothing twice on the server: 42 answers in 3 packed items (30 from A, then 5 from A, 7 from B).
    const stored = (await server.items()).filter((i) => i.kind === 'event');
    expect(stored).toHaveLength(3);
    const held = await Promise.all(stored.map((it) => decryptItem(a.deps.keys, it as StoredItem)));
    expect(held.flatMap((p) => ('events' in p ? p.events : [])).length).toBe(42);
  });

  test('an undo made on one device undoes the answer on the other (undo is an event)', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    const b = await device(server, 'B');
    await a.answer('q1', T0);
    await a.answer('q2', T0 + 1);
    await syncOnce(a.deps);
    await syncOnce(b.deps);
    await undoLast({ at: T0 + 2 }, b.store);
    await syncOnce(b.deps);
    await syncOnce(a.deps);
    expect(a.progress.snapshot().answers.map((x) => x.questionId)).toEqual(['q1']);
  });

  test('settings: the later change wins on both; a removed quiz in progress is removed on the other', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    const b = await device(server, 'B');
    a.setRecords(
      new Map<string, unknown>([
        ['rhythm', { goal: 'answer-10' }],
        ['quiz:x', { index: 3 }],
      ]),
    );
    await syncOnce(a.deps);
    // B signs in with its own defaults: the account's settings win, B's own quiz is added.
    b.setRecords(
      new Map<string, unknown>([
        ['rhythm', { goal: 'streak-rule' }],
        ['quiz:y', { index: 1 }],
      ]),
    );
    await syncOnce(b.deps);
    expect(b.records()).toEqual(
      new Map<string, unknown>([
        ['rhythm', { goal: 'answer-10' }],
        ['quiz:x', { index: 3 }],
        ['quiz:y', { index: 1 }],
      ]),
    );
    // A's clock is an hour behind; B changes the goal, then A removes quiz x after seeing B's change.
    b.setRecords(new Map([...b.records(), ['rhythm', { goal: 'answer-20' }]]));
    await syncOnce(b.deps);
    a.setNow(T0 - 3_600_000);
    await syncOnce(a.deps);
    expect(a.records().get('rhythm')).toEqual({ goal: 'answer-20' });
    const withoutX = new Map(a.records());
    withoutX.delete('quiz:x');
    a.setRecords(withoutX);
    await syncOnce(a.deps);
    await syncOnce(b.deps);
    expect(b.records().has('quiz:x')).toBe(false);
    expect(b.records()).toEqual(a.records());
  });

  test('old one-event items already on a server merge with packed ones on a new device', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    for (let i = 0; i < 4; i++) await a.answer(`qa-${i}`, T0 + i * 1000);
    const old = a.progress.snapshot().events;
    // What today's release pushed: one version-1 item an event.
    await server.api.push({
      items: await Promise.all(old.map((event) => encryptItem(a.deps.keys, { kind: 'event', event }))),
    });
    await a.answer('qa-new', T0 + 10_000);
    await syncOnce(a.deps);
    const b = await device(server, 'B');
    const report = await syncOnce(b.deps);
    expect(report.skipped).toBe(0);
    expect(b.progress.snapshot().events.map((e) => e.id)).toEqual(a.progress.snapshot().events.map((e) => e.id));
    expect(b.progress.snapshot().answers).toHaveLength(5);
  });

  test('an event no release can read is skipped alone: the answers packed with it reach the other device', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    for (let i = 0; i < 3; i++) await a.answer(`qa-${i}`, T0 + i * 1000);
    // A batch from a buggy or newer device: three answers and one event this release cannot read.
    const bad = { id: `${T0}-unreadable`, type: 'not-an-event' };
    await server.api.push({
      items: [await encryptItem(a.deps.keys, { kind: 'events', events: [...a.progress.snapshot().events, bad] })],
    });
    const b = await device(server, 'B');
    const report = await syncOnce(b.deps);
    expect(report.skipped).toBe(1);
    expect(
      b.progress
        .snapshot()
        .answers.map((x) => x.id)
        .sort(),
    ).toEqual(
      a.progress
        .snapshot()
        .answers.map((x) => x.id)
        .sort(),
    );
  });

  test('a cursor the server rejects as ahead of the account (server reset) starts over and sends everything again', async () => {
    const first = await realServer();
    const a = await device(first, 'A');
    for (let i = 0; i < 5; i++) await a.answer(`qa-${i}`, T0 + i * 1000);
    await syncOnce(a.deps);
    await syncOnce(a.deps);
    expect(Number((await a.deps.readLocal()).cursor)).toBeGreaterThan(0);
    // The server loses everything (a reset): the same address now holds an empty account.
    const reset = await realServer();
    a.deps.api = reset.api;
    await expect(reset.api.pull((await a.deps.readLocal()).cursor, 10)).rejects.toMatchObject({ code: 'bad_cursor' });
    await syncOnce(a.deps);
    const stored = await reset.items();
    const held = await Promise.all(stored.map((it) => decryptItem(a.deps.keys, it as StoredItem)));
    expect(held.flatMap((p) => ('events' in p ? p.events : [])).length).toBe(5);
    await syncOnce(a.deps);
  });
});
