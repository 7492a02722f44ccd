/**
 * What this device keeps to sync with an account (src/lib/sync/, src/client/sync/).
 *
 * Stored shape: IndexedDB database "saturate-sync", object store "state":
 *   session   `SyncSession`: the server's address, the account id, the bearer token and when it expires
 *   keys      `AccountKeys`: the account key as two non-extractable CryptoKeys (AES-GCM for items, HMAC for ids).
 *             IndexedDB stores a CryptoKey as it is (structured clone), so the raw key never sits in storage and
 *             page script cannot read it back out; only this origin's code can use it.
 *   local     `SyncLocal` (src/lib/sync/state.ts): cursor, events the server holds, known record versions, queue,
 *             small event items known for compaction
 * Its own database: signing out deletes it whole, and the progress log ("saturate") is never touched by sync
 * except through its import path (union by id).
 * localStorage `saturate:sync` = "1" while signed in: a page reads it (cheap, synchronous) to decide whether to load
 * the sync code at all; `saturate:sync-url` is a server address the learner typed.
 *
 * Lifecycle: written at sign-in (`saveSignIn`), `local` after each sync, all cleared at sign-out (`clearSync`).
 * Read back validated: a state that fails its check is a fresh one (a full pull, nothing lost).
 * Where IndexedDB refuses (some private modes), sign-in fails with words and progress works as before.
 */
import type { UseStore } from 'idb-keyval';
import { deleteValue, getValue, setValue } from './kv-ops.ts';
import { createProgressStore } from './kv.ts';
import { setSyncFlag } from './sync-flag.ts';
import { freshSyncLocal, parseSyncLocal, type SyncLocal } from '../lib/sync/state.ts';
import type { AccountKeys } from '../lib/sync/keys.ts';

export const SYNC_DB_NAME = 'saturate-sync';
export { SYNC_FLAG_KEY, SYNC_URL_KEY, syncFlag, typedServerUrl, saveTypedServerUrl } from './sync-flag.ts';

/** A signed-in session with one sync server. */
export interface SyncSession {
  serverUrl: string;
  accountId: string;
  token: string;
  expiresAt: number;
  /** The passkey used to sign in, when one was. */
  credentialId?: string;
}

/** A store in its own database (tests pass a fresh name); rejects lazily where IndexedDB is missing. */
export function createSyncStore(dbName = SYNC_DB_NAME): UseStore {
  return createProgressStore(dbName, 'state');
}

let shared: UseStore | undefined;
/** The app's sync store, created on first use. */
export function syncStore(): UseStore {
  shared ??= createSyncStore();
  return shared;
}

function isSession(v: unknown): v is SyncSession {
  const s = v as Partial<SyncSession> | undefined;
  return (
    typeof s?.serverUrl === 'string' &&
    typeof s.accountId === 'string' &&
    typeof s.token === 'string' &&
    typeof s.expiresAt === 'number'
  );
}

/** The session, or null when signed out (or what is stored is not one). */
export async function readSyncSession(store: UseStore = syncStore()): Promise<SyncSession | null> {
  try {
    const s = await getValue('session', store);
    return isSession(s) ? s : null;
  } catch {
    return null;
  }
}

/** The account's working keys, or null. */
export async function readAccountKeys(store: UseStore = syncStore()): Promise<AccountKeys | null> {
  try {
    const k = (await getValue('keys', store)) as Partial<AccountKeys> | undefined;
    return k?.enc && k.id ? { enc: k.enc, id: k.id } : null;
  } catch {
    return null;
  }
}

/** The sync progress of this device; a fresh one (with `newNode()` as its id) when none is stored or it fails its check. */
export async function readSyncLocal(newNode: () => string, store: UseStore = syncStore()): Promise<SyncLocal> {
  let v: unknown;
  try {
    v = await getValue('local', store);
  } catch {
    v = undefined;
  }
  return parseSyncLocal(v) ?? freshSyncLocal(newNode());
}

/** Keeps the sync progress after a sync. */
export async function writeSyncLocal(local: SyncLocal, store: UseStore = syncStore()): Promise<void> {
  await setValue('local', local, store);
}

/** Keeps a new sign-in: session, keys and (for a new account or another account) a fresh sync state. */
export async function saveSignIn(
  signIn: { session: SyncSession; keys: AccountKeys; local: SyncLocal | null },
  store: UseStore = syncStore(),
): Promise<void> {
  const entries: [string, unknown][] = [
    ['session', signIn.session],
    ['keys', signIn.keys],
  ];
  if (signIn.local) entries.push(['local', signIn.local]);
  // One transaction, as idb-keyval's setMany, written here: setMany in this module would join the chunk every card
  // page loads and put it over its 10 KB before a figure (test/e2e/figures.spec.ts).
  await store('readwrite', (s) => {
    for (const [k, v] of entries) s.put(v, k);
    return new Promise<void>((resolve, reject) => {
      s.transaction.oncomplete = () => resolve();
      s.transaction.onabort = s.transaction.onerror = () => reject(s.transaction.error);
    });
  });
  setSyncFlag(true);
}

/** Updates the session only (a new token). */
export async function saveSession(session: SyncSession, store: UseStore = syncStore()): Promise<void> {
  await setValue('session', session, store);
}

/** Signs this device out of sync: session, keys and sync state go; progress stays. */
export async function clearSync(store: UseStore = syncStore()): Promise<void> {
  setSyncFlag(false);
  await Promise.all(['session', 'keys', 'local'].map((k) => deleteValue(k, store)));
}
