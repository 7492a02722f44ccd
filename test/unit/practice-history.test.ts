import { describe, expect, test } from 'vitest';
import {
  bestAndLast,
  practiceAttempts,
  practiceTrend,
  topicTotals,
  trendSentence,
} from '../../src/lib/practice-history.ts';

const T0 = Date.parse('2026-03-28T10:00:00Z');
const done = (
  at: number,
  quizId: string,
  correct: number,
  topics?: { topic: string; correct: number; total: number }[],
) => ({
  type: 'quiz-done',
  at,
  context: 'practice',
  quizId,
  correct,
  total: 30,
  durationMs: 600_000,
  ...(topics ? { topics } : {}),
});

describe('practice history', () => {
  const events = [
    done(T0, 'quiz:slow-training', 18, [
      { topic: 'training', correct: 10, total: 20 },
      { topic: 'meters', correct: 8, total: 10 },
    ]),
    { type: 'answer', at: T0 + 1 },
    { ...done(T0 + 2, 'card:gpu-util', 5), context: 'card', total: 6 },
    done(T0 + 3, 'practice:abc123', 24, [{ topic: 'meters', correct: 24, total: 30 }]),
    done(T0 + 4, 'quiz:slow-training', 27),
    done(T0 + 5, 'quiz:slow-training', 21),
  ];

  test('lists practice attempts only, the newest first; an old event without topics still counts', () => {
    const attempts = practiceAttempts(events);
    expect(attempts.map((a) => [a.quizId, a.correct])).toEqual([
      ['quiz:slow-training', 21],
      ['quiz:slow-training', 27],
      ['practice:abc123', 24],
      ['quiz:slow-training', 18],
    ]);
    expect(attempts[0]!.topics).toEqual([]);
  });

  test('adds up the score by topic over every attempt that kept it', () => {
    expect(topicTotals(practiceAttempts(events))).toEqual([
      { topic: 'meters', correct: 32, total: 40 },
      { topic: 'training', correct: 10, total: 20 },
    ]);
  });

  test('a quiz’s best is its highest score (the earliest of equals), its last the newest', () => {
    const r = bestAndLast(practiceAttempts(events), 'quiz:slow-training')!;
    expect([r.best.correct, r.best.at, r.last.correct, r.count]).toEqual([27, T0 + 4, 21, 3]);
    expect(bestAndLast(practiceAttempts(events), 'quiz:never-taken')).toBeNull();
  });

  test('the trend compares the latest attempts with the ones before them', () => {
    const attempts = practiceAttempts(events);
    expect(practiceTrend(attempts, 2)).toEqual({ recentPct: 80, recentCount: 2, earlierPct: 70 });
    expect(trendSentence(practiceTrend(attempts, 2)!)).toBe('Last 2 quizzes: 80% right, up from 70% before.');
    expect(trendSentence({ recentPct: 70, recentCount: 2, earlierPct: 80 })).toBe(
      'Last 2 quizzes: 70% right, down from 80% before.',
    );
    expect(trendSentence(practiceTrend(attempts.slice(0, 1))!)).toBe('Your quiz: 70% right.');
    expect(practiceTrend([])).toBeNull();
  });
});
