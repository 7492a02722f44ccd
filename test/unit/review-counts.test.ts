/**
 * Results, Review and Home count the review queue in the same words (learning, due, new), and the results say
 * when each mistake comes back. The schedule comes from the real FSRS fold (src/lib/review.ts).
 */
import { describe, expect, test } from 'vitest';
import { State } from 'ts-fsrs';
import { buildSchedule, NEW_PER_SESSION, reviewQueue } from '../../src/lib/review.ts';
import { mistakesScheduled } from '../../src/lib/quiz-results.ts';
import {
  LEARNING_STATES,
  mistakesSentence,
  queueCounts,
  queueSentence,
  readyNow,
} from '../../src/lib/review-counts.ts';
import { answerEvent } from './answer-event.ts';

const T0 = new Date(2026, 2, 2, 9, 0).getTime(); // local time, so the sentences read 09:xx in any zone
const MIN = 60_000;
const DAY = 86_400_000;
const ans = answerEvent;
const bank = Array.from({ length: 30 }, (_, i) => ({ id: `q${i}` }));

describe('the review queue in one set of words', () => {
  test('the learning states are ts-fsrs’s', () => {
    expect([...LEARNING_STATES].sort()).toEqual([State.Learning, State.Relearning].sort());
  });

  test('a quiz with 4 mistakes: the results, the review page and the queue agree on what is back when', () => {
    // Four wrong answers a minute apart, finished at T0 + 3 min; two questions learnt a month earlier (right
    // twice, 15 minutes apart: past the learning steps), so their review has come.
    const learnt = (q: string) => [ans(q, T0 - 30 * DAY, true), ans(q, T0 - 30 * DAY + 15 * MIN, true)];
    const events = [...learnt('q20'), ...learnt('q21'), ...[0, 1, 2, 3].map((i) => ans(`q${i}`, T0 + i * MIN, false))];
    const schedule = buildSchedule(events);
    const end = T0 + 3 * MIN + 5_000;
    const wrong = events.slice(4).map((a) => ({ questionId: a.questionId, at: a.at }));
    const r = mistakesScheduled(schedule.questions, wrong);
    if (r.status !== 'scheduled') throw new Error(`expected scheduled, got ${r.status}`);
    // Every mistake is learning and comes back a step after it was answered (ts-fsrs's first step: 1 minute).
    expect([...r.backMs.values()]).toEqual([0, 1, 2, 3].map((i) => T0 + i * MIN + MIN));
    expect(mistakesSentence(r.count, 'today at 09:01', 'today at 09:04')).toBe(
      '4 mistakes added to your review queue as learning: the first back today at 09:01, the last today at 09:04.',
    );

    const c = queueCounts(bank, schedule.questions, end, NEW_PER_SESSION);
    const queue = reviewQueue(bank, schedule, end);
    // What is "now" is exactly what the session serves; the rest is said to come later, not dropped.
    expect(readyNow(c)).toBe(queue.due.length);
    expect(c.fresh).toBe(queue.fresh.length);
    expect(c).toMatchObject({ learning: 3, due: 2, fresh: 10, learningLater: 1, nextLearningMs: T0 + 4 * MIN });
    expect(c.learning + c.learningLater).toBe(r.count);
    expect(queueSentence(c, end, 'en-GB')).toBe(
      'Now: 3 learning and 2 due, then 10 new. 1 more learning back today at 09:04.',
    );
  });

  test('nothing due: the sentence says so instead of "0 due"', () => {
    const c = queueCounts(bank, buildSchedule([]).questions, T0, NEW_PER_SESSION);
    expect(queueSentence(c, T0, 'en-GB')).toBe('Nothing to review now, then 10 new.');
    const later = buildSchedule([ans('q0', T0, false), ans('q1', T0, false)]);
    expect(queueSentence(queueCounts(bank, later.questions, T0 + 1_000, 10), T0 + 1_000, 'en-GB')).toBe(
      'Nothing to review now, then 10 new. 2 more learning back from today at 09:01.',
    );
  });

  test('questions no longer in the bank are not counted', () => {
    const s = buildSchedule([ans('gone', T0, false), ans('q0', T0, false)]);
    expect(queueCounts(bank, s.questions, T0 + 2 * MIN, 10)).toMatchObject({ learning: 1, learningLater: 0 });
  });
});
