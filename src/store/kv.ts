/**
 * The progress database (idb-keyval's `UseStore`): one IndexedDB database with one object store, keys
 * are strings (see progress.ts for the key layout). `createProgressStore()` / `defaultStore()`, and the
 * two reads every page may need before the full store (src/store/peek.ts): `readAllPairs`,
 * `countRecords`. The backends over it are in backend.ts (loaded with the full store only).
 */
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';

export type { UseStore };

export const DB_NAME = 'saturate';
export const STORE_NAME = 'progress';

/** Raised when IndexedDB does not exist here (old browser, some private modes, Node). */
export class StorageUnavailableError extends Error {
  constructor(message = 'IndexedDB is not available in this browser, so progress is kept only until the tab closes.') {
    super(message);
    this.name = 'StorageUnavailableError';
  }
}

/** A store in its own database; tests pass a fresh name per test. */
export function createProgressStore(dbName = DB_NAME, storeName = STORE_NAME): UseStore {
  if (typeof indexedDB === 'undefined') {
    // Failing lazily keeps `(args, store = defaultStore())` callable everywhere; open() falls back to memory.
    return () => Promise.reject(new StorageUnavailableError());
  }
  try {
    return createStore(dbName, storeName);
  } catch (err) {
    // Firefox (older) private windows throw on indexedDB.open: https://bugzil.la/781982
    return () => Promise.reject(err);
  }
}

let shared: UseStore | undefined;
/** The app's store, created on first use (never at module load: pages import this on the server). */
export function defaultStore(): UseStore {
  shared ??= createProgressStore();
  return shared;
}

/** Every [key, value] pair, in one transaction, so keys and values match (every supported browser has getAll). */
export function readAllPairs(store: UseStore): Promise<[string, unknown][]> {
  return store('readonly', async (s) => {
    const [keys, values] = await Promise.all([promisifyRequest(s.getAllKeys()), promisifyRequest(s.getAll())]);
    return keys.map((k, i): [string, unknown] => [String(k), values[i]]);
  });
}

/** How many records there are (cheap). */
export function countRecords(store: UseStore): Promise<number> {
  return store('readonly', (s) => promisifyRequest(s.count()));
}
