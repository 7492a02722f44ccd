/** A finished card quiz opens at its last score: read from the progress log without the full store, checked. */
import { afterEach, describe, expect, test } from 'vitest';
import { BERLIN, freshStore, rawPut, T0 } from './store-helpers.ts';
import { closeProgress, openProgress, recordQuizDone, type UseStore } from '../../src/store/progress.ts';
import { lastQuizDoneOf } from '../../src/store/quiz-last.ts';
import { lastFinished, lastTimeText } from '../../src/lib/quiz-last.ts';

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});
const quiet = { tabs: false, storage: null } as const;
const done = (quizId: string, correct: number, total: number, at: number) => ({
  context: 'card' as const,
  quizId,
  total,
  correct,
  durationMs: 90_000,
  at,
  ...BERLIN,
});

describe('lastQuizDoneOf', () => {
  test("gives the newest finished attempt at this card's quiz, from single records and chunks", async () => {
    const { store } = freshStore();
    opened.push(store);
    await openProgress(quiet, store);
    expect(await lastQuizDoneOf('card:mfu', store)).toBeNull(); // never finished: the quiz starts at question 1
    await recordQuizDone(done('card:mfu', 3, 6, T0), store);
    await recordQuizDone(done('card:mfu', 5, 6, T0 + 60_000), store);
    await recordQuizDone(done('card:hfu-vs-mfu', 1, 4, T0 + 120_000), store);
    const last = await lastQuizDoneOf('card:mfu', store);
    expect(last).toEqual({ correct: 5, total: 6, at: T0 + 60_000 });
    expect(lastTimeText(last!)).toBe('Last time: 5 of 6');

    // A compacted chunk holds events as an array; a newer attempt there counts too.
    const chunked = { id: `${T0 + 180_000}-c`, type: 'quiz-done', ...done('card:mfu', 6, 6, T0 + 180_000) };
    await rawPut(store, `c:${chunked.id}~${chunked.id}~1.x`, [chunked]);
    expect(await lastQuizDoneOf('card:mfu', store)).toEqual({ correct: 6, total: 6, at: T0 + 180_000 });
  });
});

describe('lastFinished', () => {
  test('skips a record that fails the checks (more right than asked, no questions, a bad time, not whole)', () => {
    const ok = { type: 'quiz-done', quizId: 'card:mfu', correct: 4, total: 6, at: T0 };
    const bad = [
      { ...ok, correct: 7, at: T0 + 1 },
      { ...ok, total: 0, correct: 0, at: T0 + 2 },
      { ...ok, correct: 2.5, at: T0 + 3 },
      { ...ok, at: Number.POSITIVE_INFINITY },
      { ...ok, correct: '5', at: T0 + 4 },
      { ...ok, type: 'answer', at: T0 + 5 },
      null,
      'quiz-done',
    ];
    expect(lastFinished([ok, ...bad], 'card:mfu')).toEqual({ correct: 4, total: 6, at: T0 });
    expect(lastFinished(bad, 'card:mfu')).toBeNull();
  });
});
