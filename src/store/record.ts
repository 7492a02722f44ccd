/**
 * Building the stored event records, shared by the full store (progress.ts) and the light write
 * path (append.ts), so both write exactly the same records: id `${at}-${random}`, the zone and
 * offset where it happened, then the event's own fields. Also the small constants both need
 * (keys, the tab channel, the header's cached streak summary). No zod, no idb-keyval here: this
 * module ends up in the write path's chunk, which pages that only write progress load.
 */
import { dayNumber, type StreakToday } from '../lib/streak-rules.ts';
import type { AnswerDetail, CardReadDetail, LabDoneDetail, QuizDoneDetail } from '../lib/events.ts';
import type { AnswerKind } from '../lib/review.ts';
import type { ProgressEvent, Zone } from '../schemas/progress-event.ts';
import { withPlausibleDuration } from '../schemas/progress-time.ts';

/** The stored shape's version (migrations.ts); a database from a newer one is never written. */
export const CURRENT_SCHEMA_VERSION = 2;

/** The key of a single event record. */
export const eventKey = (id: string) => `e:${id}`;

/** The tabs' BroadcastChannel (sync.ts) and the localStorage key pinged where it is missing. */
export const CHANNEL_NAME = 'saturate-progress';
export const PING_KEY = 'saturate-progress-ping';

/** The device's IANA zone, or "UTC±hh:mm" when Intl does not say. */
export function deviceZoneName(at = Date.now()): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (tz && /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz)) return tz;
  const off = -new Date(at).getTimezoneOffset();
  const abs = Math.abs(off);
  return `UTC${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The UTC offset of a zone at an instant (streak.ts `offsetMinutesIn`; passed in, so the write path need not load it). */
export type OffsetIn = (tz: string, at: number) => number;

/**
 * The zone of an event at `at`: the detail's, else the device's. A zone name given without its
 * offset needs `offsetIn` (the full store passes it; app events never carry a zone).
 */
export function zoneFor(at: number, given: Partial<Zone> = {}, offsetIn?: OffsetIn): Zone {
  const tz = given.tz ?? deviceZoneName(at);
  if (given.offsetMin !== undefined) return { tz, offsetMin: given.offsetMin };
  if (given.tz === undefined) return { tz, offsetMin: -new Date(at).getTimezoneOffset() };
  if (!offsetIn) throw new Error('zoneFor: a zone name without its offset needs offsetIn');
  return { tz, offsetMin: offsetIn(tz, at) };
}

/** A fresh event id: `${at}-${random}` (10 base-36 characters from crypto). */
export function newEventId(at: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `${at}-${Array.from(bytes, (b) => (b % 36).toString(36)).join('')}`;
}

/** A new record: id, at, zone, type, then `fields`. */
export function stamp<T extends object>(
  type: ProgressEvent['type'],
  at: number,
  zone: Partial<Zone>,
  fields: T,
  offsetIn?: OffsetIn,
) {
  return { id: newEventId(at), at, ...zoneFor(at, zone, offsetIn), type, ...fields };
}

/** Optional zone override on any detail (tests, imports); the device's zone otherwise. */
export type WithZone<T> = T & Partial<Zone>;

/** The details that become one record each on their own (no look-up of earlier events needed). */
export type RecordableDetail =
  | { type: 'answer'; detail: WithZone<AnswerDetail> & { kind?: AnswerKind } }
  | { type: 'card-read'; detail: WithZone<CardReadDetail> }
  | { type: 'quiz-done'; detail: WithZone<QuizDoneDetail> }
  | { type: 'lab-done'; detail: WithZone<LabDoneDetail> };

/**
 * The stored record of an app event's detail (not yet validated: the full store validates on
 * append and on every read). The one place these records are built.
 */
export function buildRecord(
  e: RecordableDetail,
  offsetIn?: OffsetIn,
): Record<string, unknown> & { id: string; at: number; type: ProgressEvent['type'] } {
  const { tz, offsetMin, at, ...rest } = e.detail as WithZone<{ at: number; kind?: AnswerKind }>;
  if (e.type === 'answer' && !rest.kind) delete rest.kind;
  // A time from the device clock may be implausible (days on one question, a clock set back): the
  // answer still counts, with its time clamped and flagged (src/schemas/progress-time.ts).
  return withPlausibleDuration(stamp(e.type, at, pick({ tz, offsetMin }), rest, offsetIn));
}

/** A saved / unsaved record for a card. */
export function savedRecord(cardId: string, saved: boolean, at: number, zone: Partial<Zone> = {}, offsetIn?: OffsetIn) {
  return stamp('saved', at, zone, { cardId, saved }, offsetIn);
}

/** An undo record for the answer `target`. */
export function undoRecord(
  target: { id: string; at: number; questionId: string },
  now: number,
  zone: Partial<Zone> = {},
  offsetIn?: OffsetIn,
) {
  return stamp(
    'undo',
    Math.max(now, target.at),
    zone,
    { targetId: target.id, questionId: target.questionId },
    offsetIn,
  );
}

/** Drops undefined fields (exactOptionalPropertyTypes). */
function pick(z: { tz?: string | undefined; offsetMin?: number | undefined }): Partial<Zone> {
  return {
    ...(z.tz !== undefined ? { tz: z.tz } : {}),
    ...(z.offsetMin !== undefined ? { offsetMin: z.offsetMin } : {}),
  };
}

/**
 * The header badge's cached streak (localStorage), so pages that only write progress show it
 * without loading the store. Written by the header badge whenever it computes the streak from the
 * full store (src/client/progress-boot.ts `watchStreak`, with progress.ts `streakCacheOf`); updated
 * by the write path when today starts to count. Its fields: src/lib/streak-rules.ts `StreakToday`.
 */
export type StreakCache = StreakToday;

export const STREAK_CACHE_KEY = 'saturate:streak';

/** Today's local day number on this device (its zone's offset now), for days starting at `startHour`. */
export const deviceDay = (now: number, startHour = 0) => dayNumber(now, -new Date(now).getTimezoneOffset(), startHour);
/** Dispatched on window when this tab changes the cache (other tabs get a `storage` event). */
export const STREAK_CACHE_EVENT = 'saturate:streak-cache';

/** The cached summary if it is for today (device zone); null otherwise or when storage is blocked. */
export function readStreakCache(now = Date.now()): StreakCache | null {
  try {
    const raw = localStorage.getItem(STREAK_CACHE_KEY);
    if (!raw) return null;
    const c = JSON.parse(raw) as StreakCache;
    if (
      typeof c !== 'object' ||
      !c ||
      c.tz !== deviceZoneName(now) ||
      (c.startHour !== undefined && !(Number.isInteger(c.startHour) && c.startHour >= 0 && c.startHour <= 23)) ||
      c.day !== deviceDay(now, c.startHour ?? 0) ||
      typeof c.current !== 'number'
    )
      return null;
    return c;
  } catch {
    return null;
  }
}

export function writeStreakCache(c: StreakCache): void {
  try {
    const text = JSON.stringify(c);
    if (localStorage.getItem(STREAK_CACHE_KEY) === text) return;
    localStorage.setItem(STREAK_CACHE_KEY, text);
    window.dispatchEvent(new CustomEvent(STREAK_CACHE_EVENT));
  } catch {
    /* storage blocked: the badge falls back to the store */
  }
}

/** Dispatched on window when something the learner did could not be recorded; detail: `{ message }`. */
export const PROGRESS_ERROR_EVENT = 'saturate:progress-error';

/**
 * Tells the page that a record was not stored (the "not saved" note shows it: src/client/progress-boot.ts),
 * so a failed write is never silent. Also logs it for whoever debugs the emitter.
 */
export function reportProgressError(err: unknown): void {
  console.warn(err);
  if (typeof window === 'undefined' || typeof CustomEvent === 'undefined') return;
  const message = err instanceof Error ? err.message : String(err);
  window.dispatchEvent(new CustomEvent(PROGRESS_ERROR_EVENT, { detail: { message } }));
}
