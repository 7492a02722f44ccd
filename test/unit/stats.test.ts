import { describe, expect, test } from 'vitest';
import { computeStats, HEATMAP_DAYS } from '../../src/lib/stats.ts';
import { buildSchedule } from '../../src/lib/review.ts';
import type { AnswerEvent, ProgressEvent } from '../../src/schemas/progress-event.ts';

const NOW = Date.parse('2026-04-15T18:00:00+02:00');
const DAY = 86_400_000;
let seq = 0;
const base = (at: number) => ({
  id: `${at}-s${String(seq++).padStart(6, '0')}`,
  at,
  tz: 'Europe/Berlin',
  offsetMin: 120,
});
const ans = (topic: string, at: number, correct: boolean, questionId = `${topic}-q`): AnswerEvent => ({
  ...base(at),
  type: 'answer',
  questionId,
  cardId: `${topic}/c`,
  topic,
  choice: ['a'],
  correct,
  timeMs: 20_000,
  context: 'card',
});
const read = (topic: string, cardId: string, at: number): ProgressEvent => ({
  ...base(at),
  type: 'card-read',
  cardId,
  topic,
});
const sorted = (e: ProgressEvent[]) => e.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));

describe('computeStats', () => {
  test('the heatmap covers the last 84 local days, ending today, counting each day', () => {
    const events = sorted([
      ans('meters', NOW - 1000, true),
      ans('meters', NOW - 2000, false),
      read('meters', 'meters/a', NOW - DAY),
      ans('meters', NOW - 84 * DAY, true),
    ]);
    const s = computeStats(events, NOW, { tz: 'Europe/Berlin' });
    expect(s.heatmap).toHaveLength(HEATMAP_DAYS);
    expect(s.heatmap.at(-1)).toMatchObject({ day: '2026-04-15', weekday: 2, answers: 2, cardsRead: 0, level: 1 });
    expect(s.heatmap.at(-2)).toMatchObject({ day: '2026-04-14', cardsRead: 1 });
    expect(s.heatmap[0]!.day).toBe('2026-01-22');
    expect(s.heatmap.reduce((n, d) => n + d.answers, 0)).toBe(2); // the 84-days-ago answer is outside
  });

  test('a card read twice in a day counts once in the heatmap', () => {
    const events = sorted([
      read('meters', 'meters/a', NOW - 3000),
      read('meters', 'meters/a', NOW - 2000),
      read('meters', 'meters/b', NOW - 1000),
    ]);
    expect(computeStats(events, NOW, { tz: 'Europe/Berlin' }).heatmap.at(-1)).toMatchObject({ cardsRead: 2 });
  });

  test('gives accuracy and distinct cards read per topic, with deck totals', () => {
    const events = sorted([
      ans('meters', NOW - 5, true),
      ans('meters', NOW - 4, false),
      ans('meters', NOW - 3, true),
      ans('meters', NOW - 2, true),
      read('meters', 'meters/a', NOW - 9),
      read('meters', 'meters/a', NOW - 8),
      read('serving', 'serving/b', NOW - 7),
    ]);
    const cards = [
      { id: 'meters/a', topic: 'meters' },
      { id: 'meters/b', topic: 'meters' },
      { id: 'tooling/x', topic: 'tooling' },
    ];
    const s = computeStats(events, NOW, { cards });
    expect(s.topics.find((t) => t.topic === 'meters')).toEqual({
      topic: 'meters',
      answered: 4,
      correct: 3,
      accuracy: 0.75,
      cardsRead: 1,
      cardsTotal: 2,
    });
    expect(s.topics.find((t) => t.topic === 'tooling')).toMatchObject({ answered: 0, accuracy: null, cardsTotal: 1 });
    expect(s.topics.find((t) => t.topic === 'serving')).toMatchObject({ cardsRead: 1, cardsTotal: null });
    expect(s.totals).toMatchObject({ answers: 4, correct: 3, cardsRead: 2 });
  });

  test('weakest topics need 5 answers and come lowest accuracy first', () => {
    const mk = (topic: string, right: number, wrong: number) =>
      [...Array(right)]
        .map((_, i) => ans(topic, NOW - 100 - i, true))
        .concat([...Array(wrong)].map((_, i) => ans(topic, NOW - 200 - i, false)));
    const events = sorted([
      ...mk('meters', 4, 1),
      ...mk('serving', 1, 4),
      ...mk('tooling', 0, 4),
      ...mk('training', 5, 0),
    ]);
    expect(computeStats(events, NOW).weakest.map((t) => t.topic)).toEqual(['serving', 'meters']);
  });

  test('undone answers do not count', () => {
    const a = ans('meters', NOW - 10, false);
    const events: ProgressEvent[] = [a, { ...base(NOW - 5), type: 'undo', targetId: a.id, questionId: a.questionId }];
    const s = computeStats(events, NOW);
    expect(s.totals.answers).toBe(0);
    expect(s.heatmap.at(-1)!.answers).toBe(0);
  });

  test('counts reviews due on each of the next 7 days, overdue ones today', () => {
    const easy = { ...ans('meters', NOW - 1000, true, 'easy'), timeMs: 1000 }; // Easy: first interval > 7 days
    const events = sorted([
      ans('meters', NOW - 30 * DAY, false, 'old-wrong'),
      ans('meters', NOW - 1000, false, 'new-wrong'),
      ans('meters', NOW - 1000, true, 'learning'),
      easy,
    ]);
    const s = computeStats(events, NOW, { tz: 'Europe/Berlin' });
    expect(s.reviewsDue).toHaveLength(7);
    expect(s.reviewsDue[0]).toEqual({ day: '2026-04-15', count: 3 });
    expect(s.reviewsDue[6]!.day).toBe('2026-04-21');
    expect(s.reviewsDue.reduce((n, d) => n + d.count, 0)).toBe(3);
  });

  test('counts all of 50,000 answers (the timing is measured in bench/progress.ts, not asserted)', () => {
    const events: ProgressEvent[] = [];
    for (let i = 0; i < 50_000; i++)
      events.push(
        ans(
          ['meters', 'training', 'serving', 'tooling', 'useful-work'][i % 5]!,
          NOW - (50_000 - i) * 600_000,
          i % 4 !== 0,
          `q${i % 400}`,
        ),
      );
    const schedule = buildSchedule(events);
    const s = computeStats(events, NOW, { schedule, tz: 'Europe/Berlin' });
    expect(s.totals.answers).toBe(50_000);
    expect(s.topics.reduce((n, t) => n + t.answered, 0)).toBe(50_000);
  });
});
