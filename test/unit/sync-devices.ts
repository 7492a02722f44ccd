/**
 * Devices for the sync engine tests (sync-engine.test.ts, sync-compact-engine.test.ts): the real sync server
 * (server/sync/, SQLite in a temp folder) with an account made by the server tests' software passkey
 * (test/sync/authenticator.ts), and devices each with their own real progress store (fake IndexedDB) and sync
 * state (IndexedDB, account keys as non-extractable CryptoKeys).
 */
import 'fake-indexeddb/auto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openProgress, recordAnswer } from '../../src/store/progress.ts';
import { accountKeys } from '../../src/lib/sync/keys.ts';
import type { SyncDeps } from '../../src/client/sync/engine.ts';
import { syncApi } from '../../src/client/sync/api.ts';
import { startSyncServer, type RunningSyncServer } from '../../server/sync/server.ts';
import { UNLIMITED } from '../../server/sync/limits.ts';
import { newSecrets, SyncClient } from '../sync/client.ts';
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

export const ORIGIN = 'http://localhost:4321';

/** The real sync server (server/sync/) on SQLite in a temp folder, with an account made by a software passkey. */
export async function realServer() {
  const data = mkdtempSync(join(tmpdir(), 'sync-engine-'));
  const server = await startSyncServer({
    port: 0,
    data,
    allowOrigin: ORIGIN,
    rpId: 'localhost',
    limits: UNLIMITED,
    log: () => {},
  });
  servers.push(server);
  const secrets = await newSecrets();
  const client = new SyncClient(server.url, ORIGIN, 'localhost');
  const { signedIn } = await client.signup(secrets);
  let offline = false;
  const fetchFn: typeof fetch = (input, init) => {
    if (offline) return Promise.reject(new TypeError('Failed to fetch'));
    return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: ORIGIN } });
  };
  const items = async () => {
    const c = new SyncClient(server.url, ORIGIN, 'localhost');
    c.token = signedIn.session.token;
    return (await c.json<{ items: { kind: string }[] }>('GET', '/pull?after=0&limit=5000')).items;
  };
  return {
    api: syncApi(server.url, signedIn.session.token, fetchFn),
    k: secrets.k as Uint8Array<ArrayBuffer>,
    items,
    setOffline: (v: boolean) => (offline = v),
  };
}

const servers: RunningSyncServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** A device signed in to `server`'s account, with its own progress store and sync state. */
export async function device(server: Awaited<ReturnType<typeof realServer>>, name: string) {
  const raw = server.k;
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
