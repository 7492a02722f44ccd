/** Shared setup for the store tests: a fresh fake IndexedDB database per test, fixed clocks. */
import 'fake-indexeddb/auto';
import { closeProgress, createProgressStore, openProgress, type UseStore } from '../../src/store/progress.ts';
import type { AnswerDetail } from '../../src/lib/events.ts';

let n = 0;
/** A store in a database no other test uses. */
export function freshStore(): { store: UseStore; dbName: string } {
  const dbName = `test-${process.pid}-${n++}`;
  return { store: createProgressStore(dbName), dbName };
}

/** Writes a raw record, as a buggy or older release would have. */
export function rawPut(store: UseStore, key: string, value: unknown): Promise<void> {
  return store(
    'readwrite',
    (s) =>
      new Promise<void>((resolve, reject) => {
        s.put(value, key);
        s.transaction.oncomplete = () => resolve();
        s.transaction.onerror = () => reject(s.transaction.error);
      }),
  );
}

/** Every raw [key, value] in the store. */
export function rawAll(store: UseStore): Promise<[string, unknown][]> {
  return store(
    'readonly',
    (s) =>
      new Promise<[string, unknown][]>((resolve, reject) => {
        const keys = s.getAllKeys();
        const values = s.getAll();
        s.transaction.oncomplete = () => resolve(keys.result.map((k, i) => [String(k), values.result[i]]));
        s.transaction.onerror = () => reject(s.transaction.error);
      }),
  );
}

export const T0 = Date.parse('2026-03-28T10:00:00+01:00');
export const BERLIN = { tz: 'Europe/Berlin' };

export function answer(i: number, over: Partial<AnswerDetail> = {}): AnswerDetail & { tz: string } {
  return {
    questionId: `q-${i % 7}`,
    cardId: 'meters/gpu-util',
    topic: 'meters',
    choice: ['a'],
    correct: i % 3 !== 0,
    timeMs: 9_000,
    context: 'card',
    at: T0 + i * 60_000,
    ...BERLIN,
    ...over,
  };
}

/** A Web Storage area in a Map (Node has no sessionStorage); `quotaChars` makes setItem throw as a full one does. */
export function tabStorageFake(quotaChars = Infinity) {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (v.length > quotaChars) throw new DOMException('full', 'QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k: string) => void map.delete(k),
  };
}

/**
 * Opens stores the way most store tests do (no tab sync, no StorageManager, a fixed clock) and closes every one
 * of them in `closeAll()` (call it from afterEach).
 */
export function trackedOpener(clock: () => number = () => T0): {
  open: (s: UseStore) => ReturnType<typeof openProgress>;
  closeAll: () => Promise<void>;
} {
  const opened: UseStore[] = [];
  return {
    open: (s) => {
      opened.push(s);
      return openProgress({ tabs: false, storage: null, clock }, s);
    },
    closeAll: async () => {
      for (const s of opened.splice(0)) await closeProgress(s);
    },
  };
}
