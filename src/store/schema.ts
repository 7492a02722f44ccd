/**
 * The progress event log's records (zod). One record per thing the learner did; records are never
 * edited, only added, so two tabs (or a backup import) merge by union of `id`. Validated on every
 * read from IndexedDB, from another tab and from a backup file. Pure: zod only.
 *
 * Strict objects: an unknown key (including `__proto__`) fails validation, so a record written by
 * a future release is quarantined rather than half-read.
 */
import { z } from 'zod';

/** Printable text: no control characters (C0, DEL, C1), bounded length. */
const NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** An id from the deck or the app: kebab-case ids, `topic/slug` card ids, practice seeds. */
export const RefSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'Ids use letters, digits and . _ : / - only.');

/** An IANA zone name ("Europe/Berlin") or a fixed offset ("UTC+05:30"). */
export const ZoneNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^(?:[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*|UTC[+-]\d{2}:\d{2})$/, 'A time zone is an IANA name like "Europe/Berlin" or an offset like "UTC+05:30".');

/** Event id: `${at}-${random}`; unique across devices, sortable by time. */
export const EventIdSchema = z.string().regex(/^\d{1,15}-[a-z0-9]{4,32}$/, 'An event id is "<epoch ms>-<random a-z0-9>".');

const base = {
  /** Unique id, `${at}-${random}`; also the storage key (after the `e:` prefix). */
  id: EventIdSchema,
  /** When it happened, epoch ms (UTC). */
  at: z.number().int().min(0).max(8.64e15),
  /** The zone the device was in when it happened (IANA name, or UTC±hh:mm). */
  tz: ZoneNameSchema,
  /** The device's UTC offset in minutes at `at` (east positive: Berlin summer = 120). */
  offsetMin: z.number().int().min(-840).max(840),
};

const context = z.enum(['card', 'practice', 'review', 'retake', 'lab']);

/** A question answered (from 'saturate:answer'). */
export const AnswerEventSchema = z.strictObject({
  ...base,
  type: z.literal('answer'),
  questionId: RefSchema,
  cardId: RefSchema,
  topic: RefSchema,
  /** Option keys picked, or the number typed. */
  choice: z.union([z.array(z.string().max(8).regex(NO_CONTROL)).max(16), z.number()]),
  correct: z.boolean(),
  /** Milliseconds from showing the question to answering. */
  timeMs: z.number().min(0).max(8.64e7),
  context,
  /** The question kind when the recorder knew it; otherwise inferred from `choice` (see review.ts). */
  kind: z.enum(['single', 'multiple', 'numeric']).optional(),
});

/** A card read to its end (from 'saturate:card-read'). */
export const CardReadEventSchema = z.strictObject({ ...base, type: z.literal('card-read'), cardId: RefSchema, topic: RefSchema });

/** A card saved (`saved: true`) or unsaved. The newest event per card wins. */
export const SavedEventSchema = z.strictObject({ ...base, type: z.literal('saved'), cardId: RefSchema, saved: z.boolean() });

/** A quiz finished (from 'saturate:quiz-done'). */
export const QuizDoneEventSchema = z.strictObject({
  ...base,
  type: z.literal('quiz-done'),
  context,
  quizId: RefSchema,
  total: z.number().int().min(0).max(10_000),
  correct: z.number().int().min(0).max(10_000),
  durationMs: z.number().min(0).max(8.64e7),
});

/** A lab completed (from 'saturate:lab-done'). */
export const LabDoneEventSchema = z.strictObject({
  ...base,
  type: z.literal('lab-done'),
  labId: RefSchema,
  /** Whether the lab's checks passed. */
  passed: z.boolean(),
  durationMs: z.number().min(0).max(8.64e7),
});

/** "Undo last answer": the target answer no longer counts anywhere (stats, streak, schedule). */
export const UndoEventSchema = z.strictObject({ ...base, type: z.literal('undo'), targetId: EventIdSchema, questionId: RefSchema });

/** Any record of the log; `type` decides its shape. */
export const ProgressEventSchema = z
  .discriminatedUnion('type', [AnswerEventSchema, CardReadEventSchema, SavedEventSchema, QuizDoneEventSchema, LabDoneEventSchema, UndoEventSchema])
  .refine((e) => e.id.startsWith(`${e.at}-`), { message: 'An event id must start with its `at` ("<at>-<random>").', path: ['id'] });

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
export const MetaSchema = z.strictObject({
  schemaVersion: z.number().int().min(1),
  /** When `navigator.storage.persist()` was asked (epoch ms), and what it answered. */
  persistRequestedAt: z.number().int().optional(),
  persistGranted: z.boolean().optional(),
});
export type Meta = z.output<typeof MetaSchema>;

/** A record that failed validation, kept (never dropped) under `q:<original key>`. */
export const QuarantineSchema = z.strictObject({
  key: z.string().max(1000),
  /** The record as it was read. */
  value: z.unknown(),
  /** What failed, for the progress page. */
  reason: z.string().max(2000),
  quarantinedAt: z.number().int(),
});
export type QuarantinedRecord = z.output<typeof QuarantineSchema>;

/** Orders events by time, then id (a total order: ids are unique). */
export function compareEvents(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Summarizes a zod error in one line: the first issues with their paths. */
export function describeIssues(error: z.ZodError, max = 3): string {
  return error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.join('.') : '(record)'}: ${i.message}`)
    .join('; ');
}
