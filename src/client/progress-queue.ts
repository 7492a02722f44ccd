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
 * - Every record heard is noted in the page's ledger (src/store/unwritten.ts) until it is known
 *   stored, so one still being written when the page goes away is kept for the next page; the
 *   queue, when it starts, writes what an earlier page left, under the same keys.
 */
import { APP_EVENT_TYPES, on, type AppEvent } from '../lib/events.ts';
import { recordFor, type AppendWriter } from '../store/append.ts';
import type { UseStore } from '../store/kv.ts';
import { reportProgressError } from '../store/page-signals.ts';
import type { UnwrittenLedger } from '../store/unwritten.ts';

type ListenModule = typeof import('../store/listen.ts');
/** The store's API (src/store/progress.ts). */
export type ProgressModule = ListenModule['progress'];
type StoredRecord = ReturnType<typeof recordFor>;
type Waiting = { record: StoredRecord; flushed: boolean } | { event: AppEvent };

export interface ProgressQueueOptions {
  /** The light write path (append.ts `createAppendWriter`). */
  writer: AppendWriter;
  /** Loads the full store (a dynamic import of src/store/listen.ts in the page). */
  loadStore: () => Promise<ListenModule>;
  /** The database (tests); the app's default when absent. */
  store?: UseStore;
  /** Where `pagehide` and `visibilitychange` arrive (window, document); no flushing without. */
  page?: { window: EventTarget; document: EventTarget & { visibilityState: string } };
  /** Where records are noted until stored, and kept when the page goes away (src/store/unwritten.ts); none: not kept. */
  ledger?: UnwrittenLedger | null;
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

const quietErrors = new Set(['WriteRefused', 'StorageUnavailableError']);

/** A queue over one write path and one full store. */
export function createProgressQueue(options: ProgressQueueOptions): ProgressQueue {
  const { writer, store } = options;
  const ledger = options.ledger ?? null;
  const waiting: Waiting[] = [];
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
  const stored = (records: readonly StoredRecord[]) => ledger?.stored(records);
  /** Writes a record by the write path, else hands it to the full store. */
  const write = (record: StoredRecord) => {
    ledger?.writing([record]);
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
          ledger?.keep(); // after the flush (the page's ledger also keeps on its own)
        };
        page.window.addEventListener('pagehide', hide);
        page.document.addEventListener('visibilitychange', () => {
          if (page.document.visibilityState === 'hidden') hide();
        });
      }
      // What an earlier page was still writing when it went away: written again, under the same keys.
      for (const r of ledger?.takeLeft() ?? []) write(r as StoredRecord);
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
