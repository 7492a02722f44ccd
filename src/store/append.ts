/**
 * The light write path: records app events on pages that only WRITE progress (card pages,
 * practice quizzes, labs) without loading the full store (no zod, no ts-fsrs, no log read).
 * Loaded by src/client/progress-boot.ts until something on the page needs to read progress.
 *
 * It builds each record with record.ts (the same function the full store uses: same id format,
 * zone and fields) and writes it under the same key (`e:<id>`) in the same database and object
 * store, then tells the other tabs the way sync.ts does. Records are NOT validated here: the
 * full store validates every record when it READS the log (read.ts) and quarantines anything
 * that does not validate (`q:<key>`, listed on the progress page), so a bug in an emitter cannot
 * corrupt what the learner sees; it shows up there instead.
 *
 * Whatever it cannot do on its own it refuses (throws `WriteRefused` or any storage error), and
 * the boot module hands the event to the full store, which falls back to memory and shows the
 * "not saved" note: no IndexedDB, a failed or blocked write, a database from a newer release.
 * An undo ("Undo last answer") needs the log to find its answer, so it always goes to the full
 * store (a rare tap; the store then records everything after it on that page).
 */
import type { UseStore } from 'idb-keyval';
import type { AppEvent } from '../lib/events.ts';
import { afterTodayEvent, dayNumber } from '../lib/streak-rules.ts';
import { withTimeout as withTimeoutMs } from '../lib/timeout.ts';
import { defaultStore } from './kv.ts';
import { readStreakCache, writeStreakCache } from './page-signals.ts';
import {
  buildRecord,
  type RecordableDetail,
  CHANNEL_NAME,
  CURRENT_SCHEMA_VERSION,
  eventKey,
  PING_KEY,
  savedRecord,
} from './record.ts';

type StoredRecord = ReturnType<typeof buildRecord>;

/** This event needs the full store (see the doc block). */
export class WriteRefused extends Error {
  override name = 'WriteRefused';
}

/** The record for an app event, or throws `WriteRefused` when building it needs the log (an undo). */
export function recordFor(e: AppEvent): StoredRecord {
  if (e.type === 'saturate:save-toggled') {
    // The full store skips a save that changes nothing; an extra one is harmless (newest wins).
    return savedRecord(e.detail.cardId, e.detail.saved, e.detail.at);
  }
  if (e.type === 'saturate:answer-undone') throw new WriteRefused('an undo needs the log');
  // 'saturate:answer' → 'answer', 'saturate:card-read' → 'card-read', ...
  return buildRecord({ type: e.type.slice(9), detail: e.detail } as RecordableDetail);
}

/** What the light write path can do (one per page; tests make their own over fake-indexeddb). */
export interface AppendWriter {
  /**
   * Writes records (one transaction that first reads `meta`: never into a database of a newer
   * release), tells the other tabs and updates the header's cached streak. Rejects when they could
   * not be stored (`WriteRefused` for a newer database or no answer); the caller hands them to the
   * full store. The transaction starts at once, so several writes never wait for each other
   * (IndexedDB runs them in the order they were made).
   */
  write(records: readonly StoredRecord[]): Promise<void>;
  /** Closes the tab channel (tests). */
  close(): void;
}

export interface AppendWriterOptions {
  /** Give up on storage that does not answer after this long (default 5000 ms). */
  timeoutMs?: number;
  /** The tabs' BroadcastChannel name (default CHANNEL_NAME; tests isolate with their own). */
  channelName?: string;
}

/** The light write path over `store`: no module state, so a test makes one per fake database. */
export function createAppendWriter(store: UseStore = defaultStore(), options: AppendWriterOptions = {}): AppendWriter {
  const timeoutMs = options.timeoutMs ?? 5000;
  const withTimeout = <T>(p: Promise<T>): Promise<T> =>
    withTimeoutMs(p, timeoutMs, () => new WriteRefused('storage did not answer'));
  const self = Math.random().toString(36).slice(2);
  let channel: BroadcastChannel | null = null;

  /** As sync.ts: the events themselves over BroadcastChannel (receivers validate them), else a `storage` ping. */
  const tellTabs = (events: readonly StoredRecord[]): void => {
    try {
      if (typeof BroadcastChannel !== 'undefined') {
        channel ??= new BroadcastChannel(options.channelName ?? CHANNEL_NAME);
        channel.postMessage({ kind: 'events', from: self, events });
      } else localStorage.setItem(PING_KEY, `${Date.now()}-${self}`);
    } catch {
      /* nothing to tell / storage disabled: other tabs catch up on their next load */
    }
  };

  /** One transaction: read `meta`, then put every record unless the database is from a newer release. */
  const put = (records: readonly StoredRecord[]): Promise<void> =>
    store(
      'readwrite',
      (s) =>
        new Promise<void>((resolve, reject) => {
          let newer = false;
          const meta = s.get('meta');
          meta.onsuccess = () => {
            const v = (meta.result as { schemaVersion?: unknown } | undefined)?.schemaVersion;
            if (typeof v === 'number' && v > CURRENT_SCHEMA_VERSION) {
              newer = true; // the full store opens it read-only
              s.transaction.abort();
              return;
            }
            for (const r of records) s.put(r, eventKey(r.id));
            s.transaction.commit?.(); // nothing more to ask: commit now, not when the page next idles
          };
          s.transaction.oncomplete = () => resolve();
          s.transaction.onabort = () =>
            reject(newer ? new WriteRefused('newer version') : (s.transaction.error ?? new Error('write aborted')));
        }),
    );

  return {
    async write(records) {
      if (!records.length) return;
      await withTimeout(put(records));
      tellTabs(records);
      for (const r of records) updateStreakCache(r);
    },
    close() {
      channel?.close();
      channel = null;
    },
  };
}

/**
 * Keeps the header badge's cached streak right after this record: a card read, a passed lab or the
 * 5th answer of the day makes today count (src/lib/streak.ts `afterTodayEvent`). The full store
 * rewrites the cache whenever the badge computes the streak from it.
 */
function updateStreakCache(record: StoredRecord): void {
  const c = readStreakCache();
  if (!c || dayNumber(record.at, record['offsetMin'] as number, c.startHour ?? 0) !== c.day) return;
  const next = afterTodayEvent(c, { type: record.type, passed: record['passed'] as boolean | undefined });
  if (next !== c) writeStreakCache(next);
}
