import { describe, expect, test } from 'vitest';
import { buildSchedule } from '../../src/lib/review.ts';
import { cardFacts, marksFor, MASTERED_STABILITY_DAYS } from '../../src/lib/card-marks.ts';
import type { AnswerEvent } from '../../src/schemas/progress-event.ts';

const DAY_MS = 86_400_000;
const T0 = new Date('2026-03-02T09:00:00Z').getTime();
let n = 0;
/** A right (fast: Easy) or wrong answer to question `q` of card `c` at `at`. */
const answer = (c: string, q: string, at: number, correct = true) =>
  ({
    type: 'answer',
    id: `${at}-${n++}`,
    at,
    cardId: c,
    questionId: q,
    correct,
    timeMs: 3000,
    choice: ['a'],
  }) as unknown as AnswerEvent;

function marksAt(answers: AnswerEvent[], nowMs: number, questions = 2, read: string[] = []) {
  const sorted = [...answers].sort((a, b) => a.at - b.at);
  const schedule = buildSchedule(sorted);
  return marksFor(cardFacts(sorted, schedule.questions, read)['c1'], questions, nowMs);
}

describe('card marks', () => {
  test('a card read but not answered is Read only', () => {
    expect(marksAt([], T0, 2, ['c1'])).toEqual(['read']);
  });

  test('one answer right is not mastery: the other question is unanswered', () => {
    expect(marksAt([answer('c1', 'q1', T0)], T0 + DAY_MS)).toEqual([]);
  });

  test('both answered right once: not yet mastered (first stability is under 21 days)', () => {
    expect(marksAt([answer('c1', 'q1', T0), answer('c1', 'q2', T0)], T0 + DAY_MS)).toEqual([]);
  });

  test('both answered right again when due: mastered, until it is due again', () => {
    const first = [answer('c1', 'q1', T0), answer('c1', 'q2', T0)];
    const s1 = buildSchedule(first);
    const dueMs = Math.max(...[...s1.questions.values()].map((s) => s.card.due.getTime()));
    const again = [...first, answer('c1', 'q1', dueMs), answer('c1', 'q2', dueMs)];
    const s2 = buildSchedule(again);
    for (const s of s2.questions.values()) expect(s.card.stability).toBeGreaterThanOrEqual(MASTERED_STABILITY_DAYS);
    expect(marksAt(again, dueMs + DAY_MS, 2, ['c1'])).toEqual(['read', 'mastered']);
    const nextDue = Math.min(...[...s2.questions.values()].map((s) => s.card.due.getTime()));
    expect(marksAt(again, nextDue, 2, ['c1'])).toEqual(['read', 'due']);
  });

  test('a lapse after mastery: no longer mastered, and due again within the hour', () => {
    const first = [answer('c1', 'q1', T0), answer('c1', 'q2', T0)];
    const later = T0 + 20 * DAY_MS;
    const all = [
      ...first,
      answer('c1', 'q1', later),
      answer('c1', 'q2', later),
      answer('c1', 'q2', later + DAY_MS, false),
    ];
    expect(marksAt(all, later + DAY_MS + 1000)).toEqual([]);
    expect(marksAt(all, later + DAY_MS + 3_600_000)).toEqual(['due']);
  });
});
