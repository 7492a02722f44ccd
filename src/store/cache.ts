/**
 * The cached review schedule (`cache:schedule`): derived data, saved so opening the store does
 * not refold every answer through FSRS. Validated on read like everything else, but a cache that
 * fails validation or does not match the log is simply rebuilt (it holds nothing the log lacks).
 */
import { z } from 'zod';
import { TypeConvert } from 'ts-fsrs';
import type { Schedule } from '../lib/review.ts';
import type { ProgressEvent } from './schema.ts';
import { compareEvents } from './schema.ts';

export const CACHE_KEY = 'cache:schedule';

const CardJson = z.strictObject({
  due: z.number(),
  stability: z.number(),
  difficulty: z.number(),
  elapsed_days: z.number(),
  scheduled_days: z.number(),
  learning_steps: z.number(),
  reps: z.number(),
  lapses: z.number(),
  state: z.number().int().min(0).max(3),
  last_review: z.number().nullable(),
});
const LogJson = z.strictObject({
  rating: z.number().int().min(1).max(4),
  state: z.number().int().min(0).max(3),
  due: z.number(),
  stability: z.number(),
  difficulty: z.number(),
  elapsed_days: z.number(),
  last_elapsed_days: z.number(),
  scheduled_days: z.number(),
  learning_steps: z.number(),
  review: z.number(),
});
export const ScheduleCacheSchema = z.strictObject({
  v: z.literal(1),
  foldedCount: z.number().int().min(0),
  horizon: z.strictObject({ at: z.number(), id: z.string() }).nullable(),
  /** Order-free hash of the folded event ids, to detect a log that changed under the horizon. */
  idsHash: z.number().int(),
  questions: z.array(
    z.tuple([z.string(), z.strictObject({ card: CardJson, last: z.strictObject({ answerId: z.string(), log: LogJson, prevDueMs: z.number() }).nullable() })]),
  ),
});
export type ScheduleCache = z.output<typeof ScheduleCacheSchema>;

/** FNV-1a of each id, summed mod 2^32: the same for the same set in any order. */
export function idsHash(events: readonly { id: string }[], count = events.length): number {
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const id = events[i]!.id;
    let h = 0x811c9dc5;
    for (let j = 0; j < id.length; j++) h = Math.imul(h ^ id.charCodeAt(j), 0x01000193);
    sum = (sum + (h >>> 0)) >>> 0;
  }
  return sum;
}

const ms = (d: Date) => d.getTime();

export function scheduleToCache(s: Schedule, events: readonly ProgressEvent[]): ScheduleCache {
  return {
    v: 1,
    foldedCount: s.foldedCount,
    horizon: s.horizon,
    idsHash: idsHash(events, s.foldedCount),
    questions: [...s.questions].map(([q, { card, last }]) => [
      q,
      {
        card: { ...card, due: ms(card.due), last_review: card.last_review ? ms(card.last_review) : null, state: card.state },
        last: last ? { answerId: last.answerId, prevDueMs: last.prevDueMs, log: { ...last.log, due: ms(last.log.due), review: ms(last.log.review) } } : null,
      },
    ]),
  };
}

/** The cached schedule when it is valid and matches the sorted log; else null (rebuild). */
export function scheduleFromCache(raw: unknown, events: readonly ProgressEvent[]): Schedule | null {
  const parsed = ScheduleCacheSchema.safeParse(raw);
  if (!parsed.success) return null;
  const c = parsed.data;
  if (!c.horizon || c.foldedCount > events.length) return null;
  const last = events[c.foldedCount - 1];
  if (!last || compareEvents(last, c.horizon) !== 0 || idsHash(events, c.foldedCount) !== c.idsHash) return null;
  const questions: Schedule['questions'] = new Map();
  for (const [q, s] of c.questions) {
    questions.set(q, {
      card: TypeConvert.card({ ...s.card, last_review: s.card.last_review }),
      last: s.last ? { answerId: s.last.answerId, prevDueMs: s.last.prevDueMs, log: TypeConvert.review_log(s.last.log) } : null,
    });
  }
  return { foldedCount: c.foldedCount, horizon: c.horizon, questions };
}
