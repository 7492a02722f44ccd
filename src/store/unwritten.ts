/**
 * Records being written when the page goes away. A browser may end a leaving page's IndexedDB transaction before it
 * commits (a tap on "Save for revision", then a link at once), so every record the page is writing, by the light
 * write path (src/client/progress-queue.ts) or the full store (handle.ts `append`), is noted here until it is known
 * stored. When the page is hidden or leaves (`pagehide`, `visibilitychange` to hidden) the records not yet stored are
 * added to localStorage (`UNWRITTEN_RECORDS_KEY`), once each, and each is taken off again when its write completes
 * (a page that is only hidden finishes its writes). The next page's queue takes what is left and writes it under the
 * same keys (`e:<id>`): a record that was stored after all is put again unchanged, so nothing counts twice.
 * Where localStorage is blocked, nothing is kept.
 */
import { usableStorage } from './web-storage.ts';

/** Where the records are kept for the next page. */
export const UNWRITTEN_RECORDS_KEY = 'saturate:unwritten-records';

/** A record as the store writes it: its id (`<ms>-<base36>`), type and time, and its fields. */
export type KeptRecord = Record<string, unknown> & { id: string; type: string; at: number };

type KeptStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** What a kept record must have to be written back (anything else there, a hand edit or a torn write, is dropped). */
const isKeptRecord = (r: unknown): r is KeptRecord =>
  typeof r === 'object' &&
  r !== null &&
  typeof (r as KeptRecord).id === 'string' &&
  /^\d+-[0-9a-z]+$/.test((r as KeptRecord).id) &&
  typeof (r as KeptRecord).type === 'string' &&
  typeof (r as KeptRecord).at === 'number';

export interface UnwrittenLedger {
  /** These records are being written. */
  writing(records: readonly KeptRecord[]): void;
  /** These records are stored: no page needs to write them again. */
  stored(records: readonly { id: string }[]): void;
  /** The page is hidden or leaving: the records not yet stored join the kept list. */
  keep(): void;
  /** What an earlier page left (taken out of storage); none when there is nothing or storage refuses. */
  takeLeft(): KeptRecord[];
}

/** The records kept in `storage` (none when absent or unreadable). */
function readKept(storage: KeptStorage): KeptRecord[] {
  try {
    const list: unknown = JSON.parse(storage.getItem(UNWRITTEN_RECORDS_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter(isKeptRecord) : [];
  } catch {
    return [];
  }
}

/** Stores `records` as the kept list (removes the key when empty); false where storage refuses. */
function writeKept(storage: KeptStorage, records: readonly KeptRecord[]): boolean {
  try {
    if (records.length) storage.setItem(UNWRITTEN_RECORDS_KEY, JSON.stringify(records));
    else storage.removeItem(UNWRITTEN_RECORDS_KEY);
    return true;
  } catch {
    return false;
  }
}

/** A ledger over `storage` (localStorage; null: nothing is kept, the ledger only counts). */
export function createUnwrittenLedger(storage: KeptStorage | null): UnwrittenLedger {
  const unstored = new Map<string, KeptRecord>();
  /** Ids of those this page has kept in storage. */
  const kept = new Set<string>();
  return {
    writing(records) {
      for (const r of records) unstored.set(r.id, r);
    },
    stored(records) {
      for (const r of records) unstored.delete(r.id);
      const ids = new Set(records.map((r) => r.id).filter((id) => kept.delete(id)));
      if (ids.size && storage)
        writeKept(
          storage,
          readKept(storage).filter((r) => !ids.has(r.id)),
        );
    },
    keep() {
      const fresh = [...unstored.values()].filter((r) => !kept.has(r.id));
      if (!fresh.length || !storage) return;
      const before = readKept(storage);
      const have = new Set(before.map((r) => r.id));
      if (writeKept(storage, [...before, ...fresh.filter((r) => !have.has(r.id))]))
        for (const r of fresh) kept.add(r.id);
    },
    takeLeft() {
      if (!storage || storage.getItem(UNWRITTEN_RECORDS_KEY) === null) return [];
      const left = readKept(storage);
      return writeKept(storage, []) ? left : [];
    },
  };
}

let page: UnwrittenLedger | null | undefined;

/**
 * The page's one ledger, shared by the light write path and the full store: over localStorage, kept on `pagehide`
 * and on `visibilitychange` to hidden. Null outside a browser.
 */
export function pageLedger(): UnwrittenLedger | null {
  if (page !== undefined) return page;
  if (typeof window === 'undefined' || typeof document === 'undefined') return (page = null);
  const ledger = createUnwrittenLedger(usableStorage('localStorage'));
  window.addEventListener('pagehide', () => ledger.keep());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') ledger.keep();
  });
  return (page = ledger);
}
