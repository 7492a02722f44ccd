/**
 * The learner's progress, on the device. The public API of src/store (see README.md).
 *
 * Stored shape (IndexedDB database "saturate", object store "progress", string keys):
 *   e:<at>-<random>   one ProgressEvent (src/schemas/progress-event.ts): answer, card-read, saved, quiz-done,
 *                     lab-done, undo. Never edited; only added. Two tabs write different keys,
 *                     so nothing is lost, and merging (tabs, backups) is a union by id.
 *   c:<first id>~<last id>~<count>.<hash>
 *                     a chunk: up to 5,000 events moved out of `e:` keys when a store opens with
 *                     500 or more of them (chunks.ts), so a long log opens ~6× faster. Read as a
 *                     union by id with the singles; a bad item is quarantined as `c:…#<index>`.
 *                     The key names its events, so two tabs compacting never overwrite each other.
 *   meta              { schemaVersion, persistRequestedAt?, persistGranted? }
 *   q:<key>           a record that failed validation: { key, value, reason, quarantinedAt }
 *   cache:schedule    the FSRS schedule folded so far (derived; rebuilt when it does not match)
 *   cache:log         the chunks' events, validated, as one compact string (derived; log-snapshot.ts): a warm
 *                     open reads it instead of the chunks it names; ignored when stale or corrupt
 * Everything else (streak, saved cards, review queue, stats) is derived from the events.
 *
 * Lifecycle: `openProgress(options, store)` reads every record once, validates each (read.ts; zod, with a
 * proven-equivalent fast path for answers in src/schemas/parse-event.ts), moves the
 * failures to `q:` (reported in `snapshot().quarantined`, never dropped), migrates, and joins the
 * other tabs' BroadcastChannel. One open store per `UseStore`: later calls get the same one.
 * Each record* call validates, updates memory and subscribers at once, then writes its one key.
 * When IndexedDB is missing, blocked (no answer in 5 s plus 2 ms per stored record) or a write
 * fails, the store keeps working in memory, mirrored to sessionStorage so it lasts for the tab
 * (memory.ts): `snapshot().persistent` is false and `notSaved` says why and for how long, for a
 * banner. A later page where IndexedDB works stores what the tab kept.
 * Once the learner has a day that counts, `navigator.storage.persist()` is asked once.
 *
 * Migrations (migrations.ts, tested from V1_FIXTURE in test/unit/store-migration.test.ts): v1 kept one `progress`
 * record; v2 is the event log. A database from a newer release is never touched: it opens
 * read-only in memory with `notSaved.reason = 'newer-version'`.
 *
 * Clocks: every function that stamps an event takes `now` (or the detail's `at`) from the caller.
 */
import { computeStreak, offsetMinutesIn, type StreakSummary } from '../lib/streak.ts';
import { deviceDayStart, streakEvents } from './views.ts';
import {
  lastActiveAnswer,
  Progress,
  deviceZoneName,
  type ImportResult,
  type OpenOptions,
  type ProgressSnapshot,
} from './handle.ts';
import { idbBackend } from './backend.ts';
import { defaultStore, type UseStore } from './kv.ts';
import { measure } from './timing.ts';
import { buildRecord, savedRecord, undoRecord, zoneFor as zoneWith, type WithZone } from './record.ts';
import { reviewQueue, retakeMistakes, type AnswerKind, type ReviewQueue } from '../lib/review.ts';
import { savedState, type ImportPreview, type ImportRefusal } from '../lib/backup.ts';
import type {
  AnswerDetail,
  AnswerUndoneDetail,
  CardReadDetail,
  LabDoneDetail,
  QuizDoneDetail,
  SaveToggledDetail,
} from '../lib/events.ts';
import type { AnswerEvent, Zone } from '../schemas/progress-event.ts';

export { measure } from './timing.ts';
export { computeStats, deviceDayStart, goalToday, streakCacheOf, streakEvents, streakOf } from './views.ts';
export { loadRhythm, saveRhythm, watchRhythm } from './rhythm.ts';
export { NEW_PER_SESSION } from '../lib/review.ts';
/** The header badge's cached streak for today, if any, and its writer (see page-signals.ts). */
export { readStreakCache, writeStreakCache } from './page-signals.ts';
export { Progress, ProgressRecordError, deviceZoneName, NOT_SAVED_MESSAGES } from './handle.ts';
export type { ImportResult, NotSavedReason, OpenOptions, ProgressSnapshot, StorageManagerLike } from './handle.ts';
export { createProgressStore, defaultStore, type UseStore } from './kv.ts';
export type { ProgressEvent, AnswerEvent, QuarantinedRecord, Zone } from '../schemas/progress-event.ts';
export type { StreakSummary } from '../lib/streak.ts';
export type { Stats } from '../lib/stats.ts';
export type { ImportPreview, ImportRefusal } from '../lib/backup.ts';

export type { WithZone } from './record.ts';

const opened = new WeakMap<UseStore, Promise<Progress>>();

/**
 * Opens (once per store) and loads the progress store. Never rejects: storage failure → memory.
 * `options` count only for the first open of `store`.
 */
export function openProgress(options: OpenOptions = {}, store: UseStore = defaultStore()): Promise<Progress> {
  let p = opened.get(store);
  if (!p) {
    const progress = new Progress(idbBackend(store), options);
    const startMs = globalThis.performance?.now();
    p = progress.load().then(() => {
      measure('saturate:open-store', startMs);
      return progress;
    });
    opened.set(store, p);
  }
  return p;
}

/** Closes the store's tab channel and forgets it (tests; a page never needs to). */
export async function closeProgress(store: UseStore = defaultStore()): Promise<void> {
  const p = opened.get(store);
  opened.delete(store);
  (await p)?.close();
}

export { newEventId } from './record.ts';

/** The zone of an event at `at`: the detail's, else the device's. */
export function zoneFor(at: number, given: Partial<Zone> = {}): Zone {
  return zoneWith(at, given, offsetMinutesIn);
}

/** The current snapshot, after opening the store if needed. */
export async function loadProgress(store: UseStore = defaultStore()): Promise<ProgressSnapshot> {
  return (await openProgress({}, store)).snapshot();
}

/** Calls `fn` with each new snapshot (this tab or another); returns the unsubscribe function. */
export function subscribe(fn: (s: ProgressSnapshot) => void, store: UseStore = defaultStore()): () => void {
  let off: (() => void) | null = null;
  let stopped = false;
  void openProgress({}, store).then((p) => {
    if (!stopped) off = p.subscribe(fn);
  });
  return () => {
    stopped = true;
    off?.();
  };
}

/** Calls `fn` with the current snapshot now and with each new one; returns the unsubscribe function. */
export function watchProgress(fn: (s: ProgressSnapshot) => void, store: UseStore = defaultStore()): () => void {
  let off: (() => void) | null = null;
  let stopped = false;
  void openProgress({}, store).then((p) => {
    if (stopped) return;
    off = p.subscribe(fn);
    fn(p.snapshot());
  });
  return () => {
    stopped = true;
    off?.();
  };
}

/** Records an answer ('saturate:answer'). `kind` may be given when known (Easy threshold). */
export async function recordAnswer(
  detail: WithZone<AnswerDetail> & { kind?: AnswerKind },
  store: UseStore = defaultStore(),
): Promise<AnswerEvent> {
  const [saved] = await (
    await openProgress({}, store)
  ).append([buildRecord({ type: 'answer', detail }, offsetMinutesIn)]);
  return saved as AnswerEvent;
}

/** Records a card read to its end ('saturate:card-read'). */
export async function recordCardRead(
  detail: WithZone<CardReadDetail>,
  store: UseStore = defaultStore(),
): Promise<void> {
  await (await openProgress({}, store)).append([buildRecord({ type: 'card-read', detail }, offsetMinutesIn)]);
}

/** Records a finished quiz ('saturate:quiz-done'). */
export async function recordQuizDone(
  detail: WithZone<QuizDoneDetail>,
  store: UseStore = defaultStore(),
): Promise<void> {
  await (await openProgress({}, store)).append([buildRecord({ type: 'quiz-done', detail }, offsetMinutesIn)]);
}

/** Records a completed lab ('saturate:lab-done'). */
export async function recordLabDone(detail: WithZone<LabDoneDetail>, store: UseStore = defaultStore()): Promise<void> {
  await (await openProgress({}, store)).append([buildRecord({ type: 'lab-done', detail }, offsetMinutesIn)]);
}

/** Saves or unsaves a card ('saturate:save-toggled'; no event when it is already in that state). */
export async function setSaved(detail: WithZone<SaveToggledDetail>, store: UseStore = defaultStore()): Promise<void> {
  const { cardId, saved, at, ...zone } = detail;
  const p = await openProgress({}, store);
  if ((savedState(p.snapshot().events).get(cardId)?.saved ?? false) === saved) return;
  await p.append([savedRecord(cardId, saved, at, zone, offsetMinutesIn)]);
}

/** Flips a card's saved state; returns the new state. */
export async function toggleSaved(
  detail: WithZone<{ cardId: string; at: number }>,
  store: UseStore = defaultStore(),
): Promise<boolean> {
  const { cardId, at, ...zone } = detail;
  const p = await openProgress({}, store);
  const next = !(savedState(p.snapshot().events).get(cardId)?.saved ?? false);
  await p.append([savedRecord(cardId, next, at, zone, offsetMinutesIn)]);
  return next;
}

/**
 * Undoes the newest answer that still counts: it leaves stats, streak and the schedule (ts-fsrs
 * rollback). Returns that answer (to show its question again), or null when there is none.
 */
export async function undoLast(
  detail: WithZone<{ at: number }>,
  store: UseStore = defaultStore(),
): Promise<AnswerEvent | null> {
  const { at, ...zone } = detail;
  const p = await openProgress({}, store);
  const target = lastActiveAnswer(p.snapshot().events);
  if (!target) return null;
  await p.append([undoRecord(target, at, zone, offsetMinutesIn)]);
  return target;
}

/**
 * Undoes one specific answer: the newest active answer to `questionId` given at `answeredAt` (from
 * the quiz's "Undo last answer"); without `answeredAt`, the newest active answer to that question.
 * Returns the undone answer, or null when none matches: an undo never removes an answer other than
 * the one the learner sees (an older answer to the same question keeps counting).
 */
export async function undoAnswer(
  detail: WithZone<Omit<AnswerUndoneDetail, 'answeredAt'> & { answeredAt?: number }>,
  store: UseStore = defaultStore(),
): Promise<AnswerEvent | null> {
  const { questionId, answeredAt, at, ...zone } = detail;
  const p = await openProgress({}, store);
  const answers = p.snapshot().answers.filter((a) => a.questionId === questionId);
  const target = answeredAt === undefined ? answers.at(-1) : answers.findLast((a) => a.at === answeredAt);
  if (!target) return null;
  await p.append([undoRecord(target, at, zone, offsetMinutesIn)]);
  return target;
}

/** Due questions first (most overdue first), then up to `newLimit` new ones (default 10), from `bank`. */
export async function getReviewQueue<Q extends { id: string }>(
  query: { bank: readonly Q[]; now: number; newLimit?: number },
  store: UseStore = defaultStore(),
): Promise<ReviewQueue<Q>> {
  return reviewQueue(query.bank, (await loadProgress(store)).schedule, query.now, query.newLimit);
}

/** Question ids answered wrong and not answered right since, most recent first. */
export async function getRetakeQuestionIds(store: UseStore = defaultStore()): Promise<string[]> {
  return retakeMistakes((await loadProgress(store)).answers);
}

/** Streak as of `now` in zone `tz` (the device's by default). */
export async function getStreak(
  query: { now: number; tz?: string },
  store: UseStore = defaultStore(),
): Promise<StreakSummary> {
  const { now, tz = deviceZoneName(now) } = query;
  return computeStreak(streakEvents(await loadProgress(store)), now, tz, deviceDayStart(now));
}

/** Everything as a versioned JSON backup: `{ fileName, text }` to offer as a download. */
export async function exportBackup(
  now: number,
  store: UseStore = defaultStore(),
): Promise<{ fileName: string; text: string }> {
  const { fileName, text } = (await openProgress({}, store)).exportBackup(now);
  return { fileName, text };
}

/** What importing `text` would change, or why it is refused. Changes nothing. */
export async function previewImport(
  text: unknown,
  store: UseStore = defaultStore(),
): Promise<ImportPreview | ImportRefusal> {
  return (await openProgress({}, store)).previewImport(text);
}

/** Merges a backup: union by id, stored records win; a refused file changes nothing. */
export async function applyImport(text: unknown, store: UseStore = defaultStore()): Promise<ImportResult> {
  return (await openProgress({}, store)).applyImport(text);
}

/** Storage used and available (bytes), or null where the browser does not say. */
export async function storageEstimate(
  store: UseStore = defaultStore(),
): Promise<{ usageBytes: number; quotaBytes: number } | null> {
  return (await openProgress({}, store)).estimate();
}
