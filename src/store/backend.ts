/**
 * The storage backends under the full progress store (src/store/kv.ts has the database itself).
 * - `idbBackend(store)`: reads everything, writes deletes + puts in ONE transaction (atomic); a key
 *   in both ends up put (a quarantined `meta` is replaced, never left missing).
 * - `tabBackend()` (memory.ts): the same in a Map kept for the tab, used when IndexedDB is unavailable.
 * - `readAllWithin()`: the open's timeout per record.
 */
import { promisifyRequest, type UseStore } from 'idb-keyval';
import { withTimeout } from '../lib/timeout.ts';
import { countRecords, readAllPairs } from './kv.ts';

export interface Backend {
  readonly persistent: boolean;
  /** Every [key, value] pair. */
  readAll(): Promise<[string, unknown][]>;
  /**
   * Every [key, value] pair except the keys `skip` names once it has seen every key and the value
   * of `firstKey` (which is always returned), in one transaction. Optional: without it, readAll.
   */
  readSkipping?(firstKey: string, skip: Skip): Promise<[string, unknown][]>;
  /** How many records there are (cheap: sizes the open timeout). */
  count?(): Promise<number>;
  /** Deletes, then puts, in one transaction: all or nothing (a key in both is put). */
  write(puts: readonly (readonly [string, unknown])[], dels?: readonly string[]): Promise<void>;
}

/** Which keys a read may leave out, given every stored key and the value of the key read first. */
export type Skip = (keys: readonly string[], first: unknown) => ReadonlySet<string>;

export function idbBackend(store: UseStore): Backend {
  return {
    persistent: true,
    readAll: () => readAllPairs(store),
    readSkipping: (firstKey, skip) =>
      store('readonly', async (s) => {
        const keys = (await promisifyRequest(s.getAllKeys())).map(String);
        const first = keys.includes(firstKey) ? await promisifyRequest(s.get(firstKey)) : undefined;
        const skipped = skip(keys, first);
        if (skipped.size === 0) {
          const values = await promisifyRequest(s.getAll());
          return keys.map((k, i): [string, unknown] => [k, values[i]]);
        }
        const wanted = keys.filter((k) => k !== firstKey && !skipped.has(k));
        const values = await Promise.all(wanted.map((k) => promisifyRequest(s.get(k))));
        return [[firstKey, first], ...wanted.map((k, i): [string, unknown] => [k, values[i]])];
      }),
    count: () => countRecords(store),
    write: (puts, dels = []) =>
      store('readwrite', (s) => {
        for (const k of dels) s.delete(k);
        for (const [k, v] of puts) s.put(v, k);
        return promisifyRequest(s.transaction);
      }),
  };
}

/** The store did not answer in time (the open gives up and keeps progress in memory). */
export class OpenTimeoutError extends Error {
  override name = 'OpenTimeoutError';
}

/**
 * Every record, within `baseMs` (default 5000) plus `perRecordMs` (default 2) per stored record,
 * counted first: a slow device reading a long log is given time; storage that never answers is not.
 */
export async function readAllWithin(
  backend: Backend,
  baseMs = 5000,
  perRecordMs = 2,
  skipping?: { firstKey: string; skip: Skip },
): Promise<[string, unknown][]> {
  const timeout = () => new OpenTimeoutError('storage did not answer');
  const count = await withTimeout(backend.count?.() ?? Promise.resolve(0), baseMs, timeout);
  const read =
    skipping && backend.readSkipping ? backend.readSkipping(skipping.firstKey, skipping.skip) : backend.readAll();
  return withTimeout(read, baseMs + count * perRecordMs, timeout);
}
