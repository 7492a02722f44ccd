/**
 * Building the stored event records, shared by the full store (progress.ts) and the light write
 * path (append.ts), so both write exactly the same records: id `${at}-${random}`, the zone and
 * offset where it happened, then the event's own fields. Also the small constants both need
 * (keys, the tab channel). No zod, no idb-keyval here: this module ends up in the write path's
 * chunk, which a page loads once the learner does something (src/client/progress-handoff.ts).
 */
import { deviceZoneName } from './page-signals.ts';
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
