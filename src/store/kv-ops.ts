/**
 * Reads and writes of one key in a store of its own (quizzes in progress, sync's state), through idb-keyval's
 * `promisifyRequest` on the store the caller passes. idb-keyval's own `get`/`set`/`del`/`entries` would work as
 * well, but each holds a default database as a default argument, and that default rides into the chunk every page
 * loads with kv.ts: card pages then run ~250 B gzip more before a figure is visible (test/e2e/figures.spec.ts).
 */
import { promisifyRequest, type UseStore } from 'idb-keyval';

/** The value under `key`, or undefined. */
export const getValue = (key: IDBValidKey, store: UseStore): Promise<unknown> =>
  store('readonly', (s) => promisifyRequest(s.get(key)));

/** Writes `value` under `key`; resolves when the transaction is done. */
export const setValue = (key: IDBValidKey, value: unknown, store: UseStore): Promise<void> =>
  store('readwrite', (s) => {
    s.put(value, key);
    return promisifyRequest(s.transaction);
  });

/** Deletes `key`; resolves when the transaction is done. */
export const deleteValue = (key: IDBValidKey, store: UseStore): Promise<void> =>
  store('readwrite', (s) => {
    s.delete(key);
    return promisifyRequest(s.transaction);
  });
