/**
 * Where progress lives when IndexedDB cannot keep it (no IndexedDB, blocked, a failed write, a
 * newer database): this tab's memory, mirrored to `sessionStorage` so that it lasts as long as the
 * tab (the next page, e.g. /progress/ where Export is, reads it back), as the "not saved" note says.
 *
 * Only event records (`e:`, `c:`) are mirrored, as JSON under `TAB_KEY`. When `sessionStorage` is
 * missing too, or refuses the write (blocked site data, its ~5 MB quota), the records live only in
 * this page's memory and `survivesPages` turns false, so the note says exactly that and offers
 * Export on the spot. When IndexedDB works again on a later page, the store writes these records
 * into it and clears the mirror (handle.ts `load`).
 */
import type { ProgressEvent } from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';
import type { Backend } from './backend.ts';
import { usableStorage } from './web-storage.ts';

/** The sessionStorage key of the records kept for this tab. */
export const TAB_KEY = 'saturate:progress-tab';

/** The part of the Web Storage API used here (tests pass their own). */
export interface TabStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A memory backend; `survivesPages` says whether what it holds reaches the tab's next page. */
export interface TabBackend extends Backend {
  readonly survivesPages: boolean;
}

/** `sessionStorage` when this page may use it, else null (Node, blocked site data). */
export function sessionTabStorage(): TabStorage | null {
  return usableStorage('sessionStorage');
}

const kept = (key: string) => key.startsWith('e:') || key.startsWith('c:');

/** The records kept for this tab by an earlier page ([] when none or unreadable). */
export function readTabRecords(storage: TabStorage | null): [string, unknown][] {
  try {
    const raw = storage?.getItem(TAB_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (p): p is [string, unknown] => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && kept(p[0]),
    );
  } catch {
    return [];
  }
}

/** Forgets the records kept for this tab (they are in IndexedDB now). */
export function clearTabRecords(storage: TabStorage | null): void {
  try {
    storage?.removeItem(TAB_KEY);
  } catch {
    /* nothing kept */
  }
}

/**
 * The backend in a Map, starting from what earlier pages of this tab kept, mirroring event records
 * to `storage` after every write. With `storage` null it is memory only (`survivesPages` false).
 */
export function tabBackend(storage: TabStorage | null = sessionTabStorage()): TabBackend {
  const map = new Map<string, unknown>(readTabRecords(storage));
  let survives = storage !== null;
  return {
    persistent: false,
    get survivesPages() {
      return survives;
    },
    readAll: async () => [...map.entries()],
    count: async () => map.size,
    write: async (puts, dels = []) => {
      for (const k of dels) map.delete(k);
      for (const [k, v] of puts) map.set(k, structuredClone(v));
      if (!storage || ![...puts.map(([k]) => k), ...dels].some(kept)) return;
      try {
        storage.setItem(TAB_KEY, JSON.stringify([...map].filter(([k]) => kept(k))));
      } catch {
        survives = false; // over the quota: this page still has everything; the note says so
      }
    },
  };
}

/** A memory backend that no other page sees (tests; `tabBackend(null)`). */
export function memoryBackend(initial: Iterable<readonly [string, unknown]> = []): Backend {
  const b = tabBackend(null);
  void b.write([...initial]);
  return b;
}

/** The valid events an earlier page of this tab kept (`storage`) that `have` lacks. */
export function tabEvents(storage: TabStorage | null, have: readonly ProgressEvent[]): ProgressEvent[] {
  const ids = new Set(have.map((e) => e.id));
  const out: ProgressEvent[] = [];
  for (const [, value] of readTabRecords(storage)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const e = parseEvent(item);
      if (e.success && !ids.has(e.data.id)) {
        ids.add(e.data.id);
        out.push(e.data);
      }
    }
  }
  return out;
}
