/**
 * The progress event log's records (zod). One record per thing the learner did; records are never
 * edited, only added, so two tabs (or a backup import) merge by union of `id`. Validated on every
 * read from IndexedDB, from another tab and from a backup file.
 *
 * Forward-compatible: a field this release does not know (a newer release added it) is kept as it
 * is, not a reason to refuse the record, so an older tab never quarantines what a newer one wrote.
 * Only `__proto__`, `constructor` and `prototype` are refused (parseEvent checks them). A newer
 * release that changes what a record MEANS raises `schemaVersion` in `meta`, and this release then
 * opens that database read-only (src/store/read.ts).
 *
 * Uses `zod/mini` (the same checks as `zod`, tree-shakable): the store ships on every page, and
 * classic `zod` alone is ~100 KB gzip in a browser bundle, `zod/mini` with these schemas ~8 KB.
 * Parse with `parseEvent()` (./parse-event.ts: a fast path for answers), not the schema directly.
 */
import * as z from 'zod/mini';
import { MAX_DURATION_MS } from './progress-time.ts';

export { MAX_DURATION_MS };

/** Ids: a letter or digit, then letters, digits and . _ : / - (200 characters at most). */
export const REF_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
/** An IANA zone name ("Europe/Berlin") or a fixed offset ("UTC+05:30"), 64 characters at most. */
export const ZONE_PATTERN = /^(?=.{1,64}$)(?:[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*|UTC[+-]\d{2}:\d{2})$/;
/** Event id: `${at}-${random}`. */
export const EVENT_ID_PATTERN = /^\d{1,15}-[a-z0-9]{4,32}$/;
/** An option key as the quiz gives it ("a", "b", ...): printable, 8 characters at most. */
export const CHOICE_PATTERN = /^[^\u0000-\u001f\u007f-\u009f]{0,8}$/;
/** Latest instant a Date can hold (ms). */
export const MAX_EPOCH_MS = 8.64e15;
/** The places an answer can come from. */
export const CONTEXTS = ['card', 'practice', 'review', 'retake', 'lab'] as const;
/** Question kinds. */
export const KINDS = ['single', 'multiple', 'numeric'] as const;

/** An id from the deck or the app: kebab-case ids, `topic/slug` card ids, practice seeds. */
export const RefSchema = z
  .string()
  .check(z.regex(REF_PATTERN, 'Ids are 1–200 letters, digits and . _ : / - (starting with a letter or digit).'));

/** An IANA zone name ("Europe/Berlin") or a fixed offset ("UTC+05:30"). */
export const ZoneNameSchema = z
  .string()
  .check(z.regex(ZONE_PATTERN, 'A time zone is an IANA name like "Europe/Berlin" or an offset like "UTC+05:30".'));

/** Event id: `${at}-${random}`; unique across devices, sortable by time. */
export const EventIdSchema = z
  .string()
  .check(z.regex(EVENT_ID_PATTERN, 'An event id is "<epoch ms>-<random a-z0-9>".'));

/** An integer in [lo, hi], checked in one step (one check is cheaper than int + min + max). */
const intIn = (lo: number, hi: number, what: string) =>
  z
    .number()
    .check(
      z.refine((n) => Number.isInteger(n) && n >= lo && n <= hi, `${what} must be a whole number from ${lo} to ${hi}.`),
    );
const duration = z.number().check(z.refine((n) => n >= 0 && n <= MAX_DURATION_MS, 'A duration is 0 to 86,400,000 ms.'));

const base = {
  /** Unique id, `${at}-${random}`; also the storage key (after the `e:` prefix). */
  id: EventIdSchema,
  /** When it happened, epoch ms (UTC). */
  at: intIn(0, MAX_EPOCH_MS, 'at'),
  /** The zone the device was in when it happened (IANA name, or UTC±hh:mm). */
  tz: ZoneNameSchema,
  /** The device's UTC offset in minutes at `at` (east positive: Berlin summer = 120). */
  offsetMin: intIn(-840, 840, 'offsetMin'),
};

const context = z.enum(CONTEXTS);

/** A question answered (from 'saturate:answer'). */
export const AnswerEventSchema = z.looseObject({
  ...base,
  type: z.literal('answer'),
  questionId: RefSchema,
  cardId: RefSchema,
  topic: RefSchema,
  /** Option keys picked, or the number typed. */
  choice: z.union([
    z
      .array(z.string().check(z.regex(CHOICE_PATTERN, 'An option key is at most 8 printable characters.')))
      .check(z.maxLength(16)),
    z.number(),
  ]),
  correct: z.boolean(),
  /** Milliseconds from showing the question to answering (clamped into 0 to a day: see progress-time.ts). */
  timeMs: duration,
  /** Present when the device's time was implausible and `timeMs` was clamped: not a real time. */
  timeClamped: z.optional(z.literal(true)),
  context,
  /** The question kind when the recorder knew it; otherwise inferred from `choice` (see review.ts). */
  kind: z.optional(z.enum(KINDS)),
});

/** A card read to its end (from 'saturate:card-read'). */
export const CardReadEventSchema = z.looseObject({
  ...base,
  type: z.literal('card-read'),
  cardId: RefSchema,
  topic: RefSchema,
});

/** A card saved (`saved: true`) or unsaved. The newest event per card wins. */
export const SavedEventSchema = z.looseObject({
  ...base,
  type: z.literal('saved'),
  cardId: RefSchema,
  saved: z.boolean(),
});

/** A quiz finished (from 'saturate:quiz-done'). */
export const QuizDoneEventSchema = z.looseObject({
  ...base,
  type: z.literal('quiz-done'),
  context,
  quizId: RefSchema,
  total: intIn(0, 10_000, 'total'),
  correct: intIn(0, 10_000, 'correct'),
  durationMs: duration,
  /** Present when the device's time was implausible and `durationMs` was clamped. */
  durationClamped: z.optional(z.literal(true)),
  /** The score per topic (practice history on /progress/); absent in events recorded before it was kept. */
  topics: z.optional(
    z
      .array(
        z.looseObject({
          topic: RefSchema,
          correct: intIn(0, 10_000, 'correct'),
          total: intIn(0, 10_000, 'total'),
        }),
      )
      .check(z.maxLength(100)),
  ),
});

/** A lab completed (from 'saturate:lab-done'). */
export const LabDoneEventSchema = z.looseObject({
  ...base,
  type: z.literal('lab-done'),
  labId: RefSchema,
  /** Whether the lab's checks passed. */
  passed: z.boolean(),
  durationMs: duration,
  /** Present when the device's time was implausible and `durationMs` was clamped. */
  durationClamped: z.optional(z.literal(true)),
});

/** "Undo last answer": the target answer no longer counts anywhere (stats, streak, schedule). */
export const UndoEventSchema = z.looseObject({
  ...base,
  type: z.literal('undo'),
  targetId: EventIdSchema,
  questionId: RefSchema,
});

/** Any record of the log; `type` decides its shape. */
export const ProgressEventSchema = z
  .discriminatedUnion('type', [
    AnswerEventSchema,
    CardReadEventSchema,
    SavedEventSchema,
    QuizDoneEventSchema,
    LabDoneEventSchema,
    UndoEventSchema,
  ])
  .check(
    z.refine((e) => e.id.startsWith(`${e.at}-`), {
      message: 'An event id must start with its `at` ("<at>-<random>").',
      path: ['id'],
    }),
  );

export type AnswerEvent = z.output<typeof AnswerEventSchema>;
export type CardReadEvent = z.output<typeof CardReadEventSchema>;
export type SavedEvent = z.output<typeof SavedEventSchema>;
export type QuizDoneEvent = z.output<typeof QuizDoneEventSchema>;
export type LabDoneEvent = z.output<typeof LabDoneEventSchema>;
export type UndoEvent = z.output<typeof UndoEventSchema>;
export type ProgressEvent = z.output<typeof ProgressEventSchema>;
export type ProgressEventType = ProgressEvent['type'];

/** Where an event happened: zone name and the offset then. */
export interface Zone {
  tz: string;
  offsetMin: number;
}

/** The `meta` record: schema version and housekeeping. */
export const MetaSchema = z.looseObject({
  schemaVersion: z.int().check(z.minimum(1)),
  /** When `navigator.storage.persist()` was asked (epoch ms), and what it answered. */
  persistRequestedAt: z.optional(z.int()),
  persistGranted: z.optional(z.boolean()),
});
export type Meta = z.output<typeof MetaSchema>;

/** A record that failed validation, kept (never dropped) under `q:<original key>`. */
export const QuarantineSchema = z.looseObject({
  key: z.string().check(z.maxLength(1000)),
  /** The record as it was read. */
  value: z.unknown(),
  /** What failed, for the progress page. */
  reason: z.string().check(z.maxLength(2000)),
  quarantinedAt: z.int(),
});
export type QuarantinedRecord = z.output<typeof QuarantineSchema>;

/** Orders events by time, then id (a total order: ids are unique). */
export function compareEvents(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Summarizes zod issues in one line: the first issues with their paths. */
export function describeIssues(
  error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] },
  max = 3,
): string {
  return error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(record)'}: ${i.message}`)
    .join('; ');
}
