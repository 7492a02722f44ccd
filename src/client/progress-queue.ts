/**
 * The page's progress queue: what happens to each app event (`saturate:*`) from the first moment
 * the page runs until the full store takes over. A factory, so tests make one per fake database;
 * src/client/progress-boot.ts makes the page's one.
 *
 * Lifecycle:
 * - Until something asks for the full store, each event becomes its record at once (record.ts, the
 *   same record the full store builds) and is written by the light write path (append.ts); the
 *   write starts at once, so events never wait for each other.
 * - A record the write path cannot store (no IndexedDB, a failed or blocked write, a newer
 *   database) and every event after it waits here, in order, for the full store, which falls back
 *   to memory and shows the "not saved" note. So does an undo, which needs the log.
 * - `progressStore()` loads and opens the full store, waits for the writes in flight, hands it what
 *   waits here (records as built, so nothing gets a second id), then starts `listenForProgress`.
 * - Page hidden or leaving (`pagehide`, `visibilitychange` to hidden) while records wait for a
 *   full store that is still opening: they are written at once by the write path, so an answer
 *   given just before the tab closes is kept (issue #20). The full store later writes the same
 *   records under the same keys, which changes nothing.
 */
import { APP_EVENT_TYPES, on, type AppEvent } from '../lib/events.ts';
import { recordFor, type AppendWriter } from '../store/append.ts';
import type { UseStore } from '../store/kv.ts';
import { reportProgressError } from '../store/page-signals.ts';

type ListenModule = typeof import('../store/listen.ts');
/** The store's API (src/store/progress.ts). */
export type ProgressModule = ListenModule['progress'];
type StoredRecord = ReturnType<typeof recordFor>;
type Waiting = { record: StoredRecord; flushed: boolean } | { event: AppEvent };

/** Where records still being written when a page went away are kept for the next page's queue. */
export const UNWRITTEN_RECORDS_KEY = 'saturate:unwritten-records';

/** What a kept record must have to be written back (anything else there, a hand edit or a torn write, is dropped). */
const isKeptRecord = (r: unknown): r is StoredRecord =>
  typeof r === 'object' &&
  r !== null &&
  typeof (r as StoredRecord).id === 'string' &&
  /^\d+-[0-9a-z]+$/.test((r as StoredRecord).id) &&
  typeof (r as StoredRecord).type === 'string' &&
  typeof (r as StoredRecord).at === 'number';

export interface ProgressQueueOptions {
  /** The light write path (append.ts `createAppendWriter`). */
  writer: AppendWriter;
  /** Loads the full store (a dynamic import of src/store/listen.ts in the page). */
  loadStore: () => Promise<ListenModule>;
  /** The database (tests); the app's default when absent. */
  store?: UseStore;
  /** Where `pagehide` and `visibilitychange` arrive (window, document); no flushing without. */
  page?: { window: EventTarget; document: EventTarget & { visibilityState: string } };
  /** localStorage, where records still being written are kept when the page goes away; null where blocked. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
}

export interface ProgressQueue {
  /** Starts listening for app events on window. Idempotent. */
  start(): void;
  /** Takes one app event (what the listeners call). */
  heard(e: AppEvent): void;
  /** The full store, loaded and open, with everything heard so far recorded in order. */
  progressStore(): Promise<ProgressModule>;
  /** Calls `fn` with the full store once something has loaded it (never loads it). */
  whenStoreLoaded(fn: (p: ProgressModule) => void): void;
  /** Whether the full store was asked for (from then on events wait for it). */
  fullWanted(): boolean;
  /** Whether `progressStore()` has been called. */
  loadingStarted(): boolean;
  /** Runs `step` once the writes started so far have settled. */
  afterWrites<T>(step: () => T | Promise<T>): Promise<T>;
  /** Writes the records waiting for the full store now (the page is going away). */
  flush(): void;
}

type KeptStorage = NonNullable<ProgressQueueOptions['storage']>;

/** The records kept under UNWRITTEN_RECORDS_KEY (none when absent or unreadable). */
function readKept(storage: KeptStorage): StoredRecord[] {
  try {
    const list: unknown = JSON.parse(storage.getItem(UNWRITTEN_RECORDS_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter(isKeptRecord) : [];
  } catch {
    return [];
  }
}

/** Stores `records` as the kept list (removes the key when empty); false where storage refuses. */
function writeKept(storage: KeptStorage, records: readonly StoredRecord[]): boolean {
  try {
    if (records.length) storage.setItem(UNWRITTEN_RECORDS_KEY, JSON.stringify(records));
    else storage.removeItem(UNWRITTEN_RECORDS_KEY);
    return true;
  } catch {
    return false;
  }
}

const quietErrors = new Set(['WriteRefused', 'StorageUnavailableError']);

/** A queue over one write path and one full store. */
export function createProgressQueue(options: ProgressQueueOptions): ProgressQueue {
  const { writer, store } = options;
  const storage = options.storage ?? null;
  const waiting: Waiting[] = [];
  /** Records heard and not yet known stored (by the write path or the full store), by id. */
  const unstored = new Map<string, StoredRecord>();
  /** Ids of those this page kept in storage when it was hidden. */
  const kept = new Set<string>();
  const inflight = new Set<Promise<unknown>>();
  const onLoad: ((p: ProgressModule) => void)[] = [];
  let full = false;
  let loading: Promise<ProgressModule> | null = null;
  let stopListening: (() => void)[] | null = null;

  const track = (p: Promise<unknown>) => {
    const settledP: Promise<unknown> = p.then(
      () => inflight.delete(settledP),
      () => inflight.delete(settledP),
    );
    inflight.add(settledP);
  };
  const settled = async () => {
    while (inflight.size) await Promise.all([...inflight]);
  };
  const wantFull = () => {
    full = true;
    void queue.progressStore().catch(() => undefined);
  };
  /** These records are stored: no page needs to write them again. */
  const stored = (records: readonly StoredRecord[]) => {
    for (const r of records) unstored.delete(r.id);
    const ids = new Set(records.map((r) => r.id).filter((id) => kept.delete(id)));
    if (ids.size && storage)
      writeKept(
        storage,
        readKept(storage).filter((r) => !ids.has(r.id)),
      );
  };
  /** The page is hidden or leaving: the records not yet stored join the kept list, for the next page. */
  const keep = () => {
    const fresh = [...unstored.values()].filter((r) => !kept.has(r.id));
    if (!fresh.length || !storage) return;
    const before = readKept(storage);
    const have = new Set(before.map((r) => r.id));
    if (writeKept(storage, [...before, ...fresh.filter((r) => !have.has(r.id))])) for (const r of fresh) kept.add(r.id);
  };
  /** Writes a record by the write path, else hands it to the full store. */
  const write = (record: StoredRecord) => {
    unstored.set(record.id, record);
    if (full) {
      waiting.push({ record, flushed: false });
      return;
    }
    track(
      writer.write([record]).then(
        () => stored([record]),
        (err: unknown) => {
          if (!(err instanceof Error && quietErrors.has(err.name))) console.warn(err);
          waiting.push({ record, flushed: false });
          wantFull();
        },
      ),
    );
  };

  const queue: ProgressQueue = {
    start() {
      if (stopListening || loading || typeof window === 'undefined') return;
      stopListening = APP_EVENT_TYPES.map((type) => on(type, (detail) => queue.heard({ type, detail } as AppEvent)));
      const page = options.page;
      if (page) {
        const hide = () => {
          queue.flush();
          keep();
        };
        page.window.addEventListener('pagehide', hide);
        page.document.addEventListener('visibilitychange', () => {
          if (page.document.visibilityState === 'hidden') hide();
        });
      }
      // What an earlier page was still writing when it went away: written again, under the same keys.
      if (storage) {
        const left = readKept(storage);
        if (storage.getItem(UNWRITTEN_RECORDS_KEY) !== null && writeKept(storage, [])) for (const r of left) write(r);
      }
    },

    heard(e) {
      let record: StoredRecord;
      try {
        record = recordFor(e);
      } catch {
        waiting.push({ event: e }); // an undo: it needs the log
        wantFull();
        return;
      }
      write(record);
    },

    progressStore() {
      full = true;
      loading ??= options.loadStore().then(async (listen) => {
        const { progress } = listen;
        const p = await progress.openProgress({}, store);
        for (;;) {
          await settled();
          if (!waiting.length) break;
          for (const item of waiting.splice(0)) {
            if ('record' in item) await p.append([item.record]).then(() => stored([item.record]), reportProgressError);
            else await listen.recordAppEvent(item.event, store).catch(reportProgressError);
          }
        }
        for (const stop of stopListening ?? []) stop();
        stopListening = null;
        listen.listenForProgress({}, store);
        for (const fn of onLoad.splice(0)) fn(progress);
        return progress;
      });
      return loading;
    },

    whenStoreLoaded(fn) {
      if (loading) void loading.then(fn, () => undefined);
      else onLoad.push(fn);
    },

    fullWanted: () => full,
    loadingStarted: () => loading !== null,

    async afterWrites(step) {
      await settled();
      return step();
    },

    flush() {
      const pending = waiting.filter((w): w is Extract<Waiting, { record: unknown }> => 'record' in w && !w.flushed);
      if (!pending.length) return;
      for (const w of pending) w.flushed = true;
      track(
        writer.write(pending.map((w) => w.record)).then(
          () => stored(pending.map((w) => w.record)),
          () => {
            for (const w of pending) w.flushed = false; // the full store still has them
          },
        ),
      );
    },
  };
  return queue;
}
