/**
 * One sync, end to end in Node: two devices, each with its own real progress store (fake IndexedDB) and sync state
 * (IndexedDB, account keys as non-extractable CryptoKeys), against an in-memory stand-in for the sync server that
 * does what src/protocol/sync.ts says of push and pull (the real server is tested in the e2e, test/e2e/sync.spec.ts).
 */
import 'fake-indexeddb/auto';
import { describe, expect, test } from 'vitest';
import { openProgress, recordAnswer, undoLast } from '../../src/store/progress.ts';
import { accountKeys, newSecret } from '../../src/lib/sync/keys.ts';
import { syncOnce, type SyncDeps } from '../../src/client/sync/engine.ts';
import { SyncApiError, type SyncApi } from '../../src/client/sync/api.ts';
import type { StoredItem } from '../../src/protocol/sync.ts';
import {
  createSyncStore,
  readAccountKeys,
  readSyncLocal,
  saveSignIn,
  writeSyncLocal,
} from '../../src/store/sync-state.ts';
import { freshSyncLocal } from '../../src/lib/sync/state.ts';
import type { RecordVersion } from '../../src/lib/sync/items.ts';
import { freshStore, T0 } from './store-helpers.ts';

/** The server's side of push, pull and status, in memory: items in order, an id stored once. */
function memoryServer() {
  const items: StoredItem[] = [];
  const dropped = new Set<string>();
  let offline = false;
  const api = {
    async pull(after: string, limit: number) {
      if (offline) throw new SyncApiError('offline', null);
      const from = Number(after || 0);
      const page = items.filter((i) => i.seq > from && !dropped.has(i.id)).slice(0, limit);
      const cursor = String(page.at(-1)?.seq ?? from);
      return { items: page, cursor, more: items.some((i) => i.seq > Number(cursor) && !dropped.has(i.id)) };
    },
    async push(b: { items: Omit<StoredItem, 'seq'>[]; drop?: string[] }) {
      if (offline) throw new SyncApiError('offline', null);
      let accepted = 0;
      for (const it of b.items)
        if (!items.some((s) => s.id === it.id)) {
          items.push({ ...it, seq: items.length + 1 });
          accepted++;
        }
      for (const id of b.drop ?? []) dropped.add(id);
      return { accepted, duplicates: b.items.length - accepted, dropped: 0, usedBytes: 0, quotaBytes: 1e9 };
    },
    async status() {
      return {
        accountId: 'a'.repeat(16),
        devices: 2,
        items: items.length,
        usedBytes: 0,
        quotaBytes: 1e9,
        lastPushAt: null,
      };
    },
  } as unknown as SyncApi;
  return { api, items, setOffline: (v: boolean) => (offline = v) };
}

async function device(server: ReturnType<typeof memoryServer>, raw: Uint8Array<ArrayBuffer>, name: string) {
  const { store } = freshStore();
  const syncStore = createSyncStore(`sync-${name}-${Math.random()}`);
  await saveSignIn(
    {
      session: { serverUrl: 'http://localhost', accountId: 'a'.repeat(16), token: 't'.repeat(32), expiresAt: T0 + 1e9 },
      keys: await accountKeys(raw),
      local: freshSyncLocal(name),
    },
    syncStore,
  );
  const progress = await openProgress({ tabs: false, storage: null, tabStorage: null }, store);
  let records = new Map<string, unknown>();
  let now = T0;
  const deps: SyncDeps = {
    api: server.api,
    keys: (await readAccountKeys(syncStore))!,
    readLocal: () => readSyncLocal(() => name, syncStore),
    writeLocal: (s) => writeSyncLocal(s, syncStore),
    events: async () => progress.snapshot().events,
    importEvents: (text) => progress.applyImport(text),
    records: async () => records,
    applyRecords: async (vs: RecordVersion[]) => {
      records = new Map(records);
      for (const v of vs)
        if (v.deleted) records.delete(v.key);
        else records.set(v.key, v.value);
      return [];
    },
    now: () => (now += 1000),
  };
  const answer = (q: string, at: number) =>
    recordAnswer(
      {
        questionId: q,
        cardId: 'meters/util',
        topic: 'meters',
        choice: ['a'],
        correct: true,
        timeMs: 5000,
        context: 'practice',
        at,
      },
      store,
    );
  return {
    deps,
    store,
    progress,
    answer,
    setRecords: (r: Map<string, unknown>) => (records = r),
    records: () => records,
    setNow: (t: number) => (now = t),
  };
}

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
    const server = memoryServer();
    const k = newSecret();
    const a = await device(server, k, 'A');
    const b = await device(server, k, 'B');
    for (let i = 0; i < 30; i++) await a.answer(`qa-${i}`, T0 + i * 1000);
    await syncOnce(a.deps);
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
    // Nothing twice on the server: 42 answers, one item each.
    expect(server.items.filter((i) => i.kind === 'event')).toHaveLength(42);
  });

  test('an undo made on one device undoes the answer on the other (undo is an event)', async () => {
    const server = memoryServer();
    const k = newSecret();
    const a = await device(server, k, 'A');
    const b = await device(server, k, 'B');
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
    const server = memoryServer();
    const k = newSecret();
    const a = await device(server, k, 'A');
    const b = await device(server, k, 'B');
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
});
