/**
 * The cached review schedule (`cache:schedule`): derived data, saved so opening the store does
 * not refold every answer through FSRS. Validated on read like everything else, but a cache that
 * fails validation or does not match the log is simply rebuilt (it holds nothing the log lacks).
 */
import * as z from 'zod/mini';
import { TypeConvert } from 'ts-fsrs';
import type { Schedule } from '../lib/review.ts';
import type { ProgressEvent } from '../schemas/progress-event.ts';
import { compareEvents } from '../schemas/progress-event.ts';

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
  state: z.int().check(z.minimum(0), z.maximum(3)),
  last_review: z.nullable(z.number()),
});
const LogJson = z.strictObject({
  rating: z.int().check(z.minimum(1), z.maximum(4)),
  state: z.int().check(z.minimum(0), z.maximum(3)),
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
  foldedCount: z.int().check(z.minimum(0)),
  horizon: z.nullable(z.strictObject({ at: z.number(), id: z.string() })),
  /** Order-free hash of the folded event ids, to detect a log that changed under the horizon. */
  idsHash: z.int(),
  questions: z.array(
    z.tuple([
      z.string(),
      z.strictObject({
        card: CardJson,
        last: z.nullable(z.strictObject({ answerId: z.string(), log: LogJson, prevDueMs: z.number() })),
      }),
    ]),
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
        card: {
          ...card,
          due: ms(card.due),
          last_review: card.last_review ? ms(card.last_review) : null,
          state: card.state,
        },
        last: last
          ? {
              answerId: last.answerId,
              prevDueMs: last.prevDueMs,
              log: { ...last.log, due: ms(last.log.due), review: ms(last.log.review) },
            }
          : null,
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
      last: s.last
        ? { answerId: s.last.answerId, prevDueMs: s.last.prevDueMs, log: TypeConvert.review_log(s.last.log) }
        : null,
    });
  }
  return { foldedCount: c.foldedCount, horizon: c.horizon, questions };
}
