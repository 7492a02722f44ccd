import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { Rating, State } from 'ts-fsrs';
import {
  activeAnswers,
  buildSchedule,
  EASY_WITHIN_MS,
  gradeAnswer,
  retakeMistakes,
  reviewQueue,
  type Schedule,
} from '../../src/lib/review.ts';
import type { AnswerEvent, ProgressEvent, UndoEvent } from '../../src/schemas/progress-event.ts';
import { answerEvent, eventId } from './answer-event.ts';

const T0 = Date.parse('2026-03-02T09:00:00Z');
const HOUR = 3_600_000;
const DAY = 86_400_000;
const ans = answerEvent;
function undo(target: AnswerEvent, at: number): UndoEvent {
  return {
    id: eventId(at, 'u'),
    at,
    tz: 'UTC',
    offsetMin: 0,
    type: 'undo',
    targetId: target.id,
    questionId: target.questionId,
  };
}
/** Comparable form of a schedule (Dates → ms), leaving out the undo bookkeeping. */
const cards = (s: Schedule) =>
  Object.fromEntries(
    [...s.questions].map(([q, { card }]) => [
      q,
      { ...card, due: card.due.getTime(), last_review: card.last_review?.getTime() ?? null },
    ]),
  );

describe('gradeAnswer', () => {
  test('wrong is Again, right is Good, right and fast is Easy', () => {
    expect(gradeAnswer({ correct: false, timeMs: 1000, choice: ['a'] })).toBe(Rating.Again);
    expect(gradeAnswer({ correct: true, timeMs: EASY_WITHIN_MS.single + 1, choice: ['a'] })).toBe(Rating.Good);
    expect(gradeAnswer({ correct: true, timeMs: EASY_WITHIN_MS.single, choice: ['a'] })).toBe(Rating.Easy);
  });

  test('uses the threshold of the kind, recorded or inferred from the choice', () => {
    expect(gradeAnswer({ correct: true, timeMs: 12_000, choice: ['a', 'c'] })).toBe(Rating.Easy); // multiple: 15 s
    expect(gradeAnswer({ correct: true, timeMs: 12_000, choice: ['a'] })).toBe(Rating.Good); // single: 8 s
    expect(gradeAnswer({ correct: true, timeMs: 12_000, choice: ['a'], kind: 'multiple' })).toBe(Rating.Easy);
    expect(gradeAnswer({ correct: true, timeMs: 25_000, choice: 42 })).toBe(Rating.Easy); // numeric: 30 s
  });
});

describe('buildSchedule', () => {
  test('a wrong answer is due again sooner than a right one, and Easy later than Good', () => {
    const s = buildSchedule(
      [ans('wrong', T0, false), ans('good', T0, true, 20_000), ans('easy', T0, true, 2_000)].sort((a, b) =>
        a.id.localeCompare(b.id),
      ),
    );
    const due = (q: string) => s.questions.get(q)!.card.due.getTime();
    expect(due('wrong')).toBeLessThan(due('good'));
    expect(due('good')).toBeLessThan(due('easy'));
    expect(due('wrong') - T0).toBeLessThanOrEqual(10 * 60_000);
  });

  test('folds only the new events onto a prior schedule, with the same result as a full fold', () => {
    const log = [
      ans('q1', T0, true),
      ans('q2', T0 + HOUR, false),
      ans('q1', T0 + 3 * DAY, true),
      ans('q2', T0 + 4 * DAY, true),
    ];
    const prior = buildSchedule(log.slice(0, 2));
    const incremental = buildSchedule(log, prior);
    expect(cards(incremental)).toEqual(cards(buildSchedule(log)));
    expect(incremental.foldedCount).toBe(4);
  });

  test('refolds everything when an older event was merged under the horizon', () => {
    const a = ans('q1', T0 + DAY, true);
    const prior = buildSchedule([a]);
    const older = ans('q1', T0, false);
    const merged = [older, a];
    expect(cards(buildSchedule(merged, prior))).toEqual(cards(buildSchedule(merged)));
    expect(buildSchedule(merged, prior).questions.get('q1')!.card.lapses).toBe(0);
    expect(buildSchedule(merged, prior).questions.get('q1')!.card.reps).toBe(2);
  });

  test('undo of the latest answer rolls the question back (ts-fsrs rollback) exactly to replaying without it', () => {
    const a1 = ans('q1', T0, true, 1_000); // Easy: straight to Review
    const a2 = ans('q1', T0 + 9 * DAY, false); // a lapse
    const prior = buildSchedule([a1, a2]);
    expect(prior.questions.get('q1')!.card.lapses).toBe(1);
    const u = undo(a2, T0 + 9 * DAY + 5000);
    const after = buildSchedule([a1, a2, u], prior);
    expect(cards(after)).toEqual(cards(buildSchedule([a1])));
    expect(after.questions.get('q1')!.card.state).not.toBe(State.Relearning);
  });

  test('undo of an older answer rebuilds the question without it', () => {
    const a1 = ans('q1', T0, false);
    const a2 = ans('q1', T0 + DAY, true);
    const prior = buildSchedule([a1, a2]);
    const after = buildSchedule([a1, a2, undo(a1, T0 + DAY + 1)], prior);
    expect(cards(after)).toEqual(cards(buildSchedule([a2])));
  });

  test('property: rollback-based undo always equals a full fold without the undone answer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gapH: fc.integer({ min: 0, max: 24 * 40 }), correct: fc.boolean(), fast: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        (steps) => {
          let at = T0;
          const log = steps.map((s) => ans('q', (at += s.gapH * HOUR + 1000), s.correct, s.fast ? 1000 : 20_000));
          const prior = buildSchedule(log);
          const last = log.at(-1)!;
          const withUndo: ProgressEvent[] = [...log, undo(last, last.at + 1)];
          expect(cards(buildSchedule(withUndo, prior))).toEqual(cards(buildSchedule(log.slice(0, -1))));
        },
      ),
      { numRuns: 200, seed: 4402 },
    );
  });
});

describe('reviewQueue', () => {
  const bank = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  test('serves due questions first, most overdue first, then new ones up to the limit', () => {
    const s = buildSchedule([ans('c', T0, false), ans('a', T0 + HOUR, false), ans('b', T0 + 2 * HOUR, true)]);
    const now = T0 + 2 * DAY; // c and a (Again) are due; b (Good) is not yet? check by state
    const q = reviewQueue(bank, s, now, 1);
    expect(q.due.map((x) => x.id)).toEqual([
      'c',
      'a',
      ...(s.questions.get('b')!.card.due.getTime() <= now ? ['b'] : []),
    ]);
    expect(q.fresh.map((x) => x.id)).toEqual(['d']);
    expect(q.items.map((x) => x.id)).toEqual([...q.due, ...q.fresh].map((x) => x.id));
  });

  test('serves nothing due right after a right answer', () => {
    const s = buildSchedule([ans('a', T0, true)]);
    expect(reviewQueue(bank, s, T0 + 1000).due).toEqual([]);
  });

  test('leaves out questions no longer in the bank', () => {
    const s = buildSchedule([ans('gone', T0, false)]);
    expect(reviewQueue(bank, s, T0 + DAY).due).toEqual([]);
  });
});

describe('retakeMistakes', () => {
  test('lists questions answered wrong and not answered right since, newest mistake first', () => {
    const log = [
      ans('a', T0, false),
      ans('b', T0 + 1, false),
      ans('a', T0 + 2, true),
      ans('c', T0 + 3, true),
      ans('c', T0 + 4, false),
      ans('a', T0 - 5, false),
    ].sort((x, y) => x.at - y.at);
    expect(retakeMistakes(log)).toEqual(['c', 'b']);
  });

  test('an undone wrong answer is not a mistake', () => {
    const wrong = ans('a', T0, false);
    expect(retakeMistakes(activeAnswers([wrong, undo(wrong, T0 + 1)]))).toEqual([]);
  });
});
