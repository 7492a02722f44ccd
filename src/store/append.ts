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
import { promisifyRequest, type UseStore } from 'idb-keyval';
import type { AppEvent } from '../lib/events.ts';
import { afterTodayEvent, dayNumber, EMPTY_DAY, NO_STREAK, streakToday } from '../lib/streak-rules.ts';
import { withTimeout as withTimeoutMs } from '../lib/timeout.ts';
import { defaultStore, idbBackend } from './kv.ts';
import {
  buildRecord,
  type RecordableDetail,
  CHANNEL_NAME,
  CURRENT_SCHEMA_VERSION,
  deviceDay,
  deviceZoneName,
  eventKey,
  PING_KEY,
  readStreakCache,
  savedRecord,
  writeStreakCache,
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

const TIMEOUT_MS = 5000;

const withTimeout = <T>(p: Promise<T>): Promise<T> =>
  withTimeoutMs(p, TIMEOUT_MS, () => new WriteRefused('storage did not answer'));

let checked: Promise<void> | null = null;
/** Once per page: never write into a database from a newer release (the full store opens it read-only). */
function checkVersion(store: UseStore): Promise<void> {
  checked ??= withTimeout(store('readonly', (s) => promisifyRequest<unknown>(s.get('meta')))).then((meta) => {
    const v = (meta as { schemaVersion?: unknown } | undefined)?.schemaVersion;
    if (typeof v === 'number' && v > CURRENT_SCHEMA_VERSION) throw new WriteRefused('newer version');
  });
  checked.catch(() => (checked = null));
  return checked;
}

/**
 * Writes one event's record (one transaction), tells the other tabs and updates the header's
 * cached streak. Rejects when it could not be stored; the caller gives `record` to the full store.
 */
export async function writeRecord(record: StoredRecord, store: UseStore = defaultStore()): Promise<void> {
  await checkVersion(store);
  await withTimeout(idbBackend(store).write([[eventKey(record.id), record]]));
  tellTabs([record]);
  updateStreakCache(record);
}

let channel: BroadcastChannel | null = null;
const self = Math.random().toString(36).slice(2);

/** As sync.ts: the events themselves over BroadcastChannel (receivers validate them), else a `storage` ping. */
function tellTabs(events: readonly StoredRecord[]): void {
  try {
    if (typeof BroadcastChannel !== 'undefined') {
      channel ??= new BroadcastChannel(CHANNEL_NAME);
      channel.postMessage({ kind: 'events', from: self, events });
    } else localStorage.setItem(PING_KEY, `${Date.now()}-${self}`);
  } catch {
    /* nothing to tell / storage disabled: other tabs catch up on their next load */
  }
}

/**
 * Keeps the header badge's cached streak right after this record: a card read, a passed lab or the
 * 5th answer of the day makes today count (src/lib/streak.ts `afterTodayEvent`). The full store
 * rewrites the cache whenever the badge computes the streak from it.
 */
function updateStreakCache(record: StoredRecord): void {
  const c = readStreakCache();
  if (!c || dayNumber(record.at, record['offsetMin'] as number) !== c.day) return;
  const next = afterTodayEvent(c, { type: record.type, passed: record['passed'] as boolean | undefined });
  if (next !== c) writeStreakCache(next);
}

/** True when the database holds no record at all (a first visit): the streak is then plainly 0. */
export async function storeIsEmpty(store: UseStore = defaultStore()): Promise<boolean> {
  const n = await withTimeout(store('readonly', (s) => promisifyRequest(s.count())));
  return n === 0;
}

/**
 * Whether `cardId` is saved, from its newest `saved` record (single keys and chunks), read without
 * validation (the save button's state only; the full store decides what counts).
 */
export async function savedStateOf(cardId: string, store: UseStore = defaultStore()): Promise<boolean> {
  let newest: { at: number; id: string; saved: unknown } | undefined;
  const look = (e: { type?: unknown; cardId?: unknown; at: number; id: string; saved: unknown } | null) => {
    if (
      e?.type === 'saved' &&
      e.cardId === cardId &&
      (!newest || e.at > newest.at || (e.at === newest.at && e.id > newest.id))
    )
      newest = e;
  };
  for (const [key, value] of await withTimeout(idbBackend(store).readAll())) {
    if (key.startsWith('e:')) look(value as never);
    else if (key.startsWith('c:') && Array.isArray(value)) value.forEach(look);
  }
  return newest?.saved === true;
}

/** The zero streak for an empty log, cached for today (the header badge). */
export function cacheEmptyStreak(now = Date.now()): void {
  writeStreakCache(streakToday(NO_STREAK, EMPTY_DAY, deviceDay(now), deviceZoneName(now)));
}
