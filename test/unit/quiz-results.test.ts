import { describe, expect, test } from 'vitest';
import { mistakesScheduled, reviewWhen, topicBreakdown } from '../../src/lib/quiz-results.ts';

const T0 = Date.parse('2026-03-28T10:00:00Z');
const card = (dueMs: number, reviewedMs: number) => ({
  card: { due: new Date(dueMs), last_review: new Date(reviewedMs) },
});

describe('topicBreakdown', () => {
  test('counts right answers per topic, in the order the quiz asked them; unanswered count as not right', () => {
    const qs = [
      { id: 'a', topic: 'training' },
      { id: 'b', topic: 'meters' },
      { id: 'c', topic: 'training' },
      { id: 'd', topic: 'training' },
    ];
    const answers = [
      { questionId: 'a', correct: true },
      { questionId: 'b', correct: false },
      { questionId: 'c', correct: true },
    ];
    expect(topicBreakdown(qs, answers)).toEqual([
      { topic: 'training', correct: 2, total: 3 },
      { topic: 'meters', correct: 0, total: 1 },
    ]);
  });
});

describe('mistakesScheduled', () => {
  test('gives the number of mistakes and the earliest time one of them is due again', () => {
    const schedule = new Map([
      ['a', card(T0 + 600_000, T0 + 1_000)],
      ['b', card(T0 + 60_000, T0 + 2_000)],
      ['c', card(T0 - 5, T0)],
    ]);
    const wrong = [
      { questionId: 'a', at: T0 + 1_000 },
      { questionId: 'b', at: T0 + 2_000 },
    ];
    expect(mistakesScheduled(schedule, wrong)).toMatchObject({
      status: 'scheduled',
      count: 2,
      nextReviewMs: T0 + 60_000,
    });
  });

  test('waits while a mistake is not in the schedule yet, or only an earlier answer to it is', () => {
    const schedule = new Map([['a', card(T0 + 600_000, T0 - 86_400_000)]]);
    expect(mistakesScheduled(schedule, [{ questionId: 'a', at: T0 }])).toEqual({ status: 'pending' });
    expect(mistakesScheduled(new Map(), [{ questionId: 'a', at: T0 }])).toEqual({ status: 'pending' });
    expect(mistakesScheduled(new Map(), [])).toEqual({ status: 'none' });
  });
});

describe('reviewWhen', () => {
  test('says now, today, tomorrow or the day, in the device zone', () => {
    const now = new Date(2026, 2, 28, 10, 0).getTime();
    expect(reviewWhen(now - 1, now, 'en-GB')).toBe('now');
    expect(reviewWhen(new Date(2026, 2, 28, 10, 1).getTime(), now, 'en-GB')).toBe('today at 10:01');
    expect(reviewWhen(new Date(2026, 2, 29, 9, 0).getTime(), now, 'en-GB')).toBe('tomorrow at 09:00');
    expect(reviewWhen(new Date(2026, 3, 2, 9, 0).getTime(), now, 'en-GB')).toBe('on Thu 2 Apr');
  });

  test('a locale Intl rejects (WebKit under a POSIX locale says "C") falls back instead of throwing', () => {
    const now = new Date(2026, 2, 28, 10, 0).getTime();
    expect(reviewWhen(new Date(2026, 2, 28, 10, 1).getTime(), now, 'C')).toMatch(/^today at 10:01/);
  });
});
