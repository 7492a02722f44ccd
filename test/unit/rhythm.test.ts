import { describe, expect, test } from 'vitest';
import {
  currentDayStartHour,
  dayStartAt,
  dayStartNote,
  goalProgress,
  goalWasChosen,
  migrateRhythm,
  milestoneDismissed,
  milestoneShown,
  milestoneToShow,
  parseRhythm,
  rhythmDay,
  switchAt,
  withDayStartHour,
  withGoal,
  type Rhythm,
} from '../../src/lib/rhythm.ts';
import { computeStreak, dayToIso, localDay, MIDNIGHT, zoneAt, type DayEvent } from '../../src/lib/streak.ts';

const BERLIN = 'Europe/Berlin';
const at = (iso: string) => Date.parse(iso);
/** The date (YYYY-MM-DD) of an instant in Berlin for a day starting at `hour`. */
const berlinDay = (iso: string, hour: number) => {
  const t = at(iso);
  return dayToIso(localDay(t, BERLIN, zoneAt(BERLIN, t).offsetMin, hour));
};
const read = (iso: string): DayEvent => ({ type: 'card-read', at: at(iso), ...zoneAt(BERLIN, at(iso)) });

describe('a day that starts at 4:00', () => {
  test('on 2026-03-29 in Berlin (clocks go forward at 2:00), 3:30 is still the 28th and 4:00 starts the 29th', () => {
    expect(berlinDay('2026-03-29T01:59:00+01:00', 4)).toBe('2026-03-28');
    expect(berlinDay('2026-03-29T03:30:00+02:00', 4)).toBe('2026-03-28');
    expect(berlinDay('2026-03-29T04:00:00+02:00', 4)).toBe('2026-03-29');
    expect(berlinDay('2026-03-30T03:59:00+02:00', 4)).toBe('2026-03-29');
  });

  test('on 2026-10-25 in Berlin (clocks go back at 3:00), both 2:30s and 3:30 belong to the 24th', () => {
    expect(berlinDay('2026-10-25T02:30:00+02:00', 4)).toBe('2026-10-24');
    expect(berlinDay('2026-10-25T02:30:00+01:00', 4)).toBe('2026-10-24');
    expect(berlinDay('2026-10-25T03:59:00+01:00', 4)).toBe('2026-10-24');
    expect(berlinDay('2026-10-25T04:00:00+01:00', 4)).toBe('2026-10-25');
  });

  test('with the day starting at 2:00 on 2026-10-25, the first 2:30 and the repeated 2:30 are the same day', () => {
    expect(berlinDay('2026-10-25T01:59:00+02:00', 2)).toBe('2026-10-24');
    expect(berlinDay('2026-10-25T02:30:00+02:00', 2)).toBe('2026-10-25');
    expect(berlinDay('2026-10-25T02:30:00+01:00', 2)).toBe('2026-10-25');
  });

  test('a late-night read counts for the evening before: three nights are two days across the 23-hour day', () => {
    const events = [
      read('2026-03-28T20:00:00+01:00'),
      read('2026-03-29T03:30:00+02:00'),
      read('2026-03-30T02:00:00+02:00'),
    ];
    const now = at('2026-03-30T10:00:00+02:00');
    expect(computeStreak(events, now, BERLIN, () => 4)).toMatchObject({ current: 2, todayDone: false });
    expect(computeStreak(events, now, BERLIN, MIDNIGHT)).toMatchObject({ current: 3, todayDone: true });
  });
});

describe('parseRhythm (validated on read)', () => {
  const good = migrateRhythm(at('2026-05-04T12:00:00Z'), 0);
  test('reads back what was written', () => {
    expect(parseRhythm(JSON.stringify(good))).toEqual(good);
  });
  test.each([
    ['nothing stored', null],
    ['not JSON', '{oops'],
    ['another version', JSON.stringify({ ...good, v: 2 })],
    ['an hour of 24', JSON.stringify({ ...good, dayStarts: [{ fromAt: 0, hour: 24 }] })],
    ['half an hour', JSON.stringify({ ...good, dayStarts: [{ fromAt: 0, hour: 4.5 }] })],
    ['no hour at all', JSON.stringify({ ...good, dayStarts: [] })],
    [
      'changes out of order',
      JSON.stringify({
        ...good,
        dayStarts: [
          { fromAt: 5, hour: 1 },
          { fromAt: 1, hour: 2 },
        ],
      }),
    ],
    ['an unknown goal', JSON.stringify({ ...good, goal: 'answer-1000' })],
    ['an unknown milestone', JSON.stringify({ ...good, milestones: [{ days: 8, shownDay: 1, dismissed: false }] })],
  ])('refuses %s', (_, text) => {
    expect(parseRhythm(text)).toBeNull();
  });
});

describe('the migration for a learner with no settings', () => {
  // Late-night learner: a read at 0:30 Berlin time every night from 2026-03-20 to 2026-04-02 (across the
  // DST change), and 5 answers at 1:00 on 2026-04-03.
  const events: DayEvent[] = [];
  for (let d = 20; d <= 33; d++) {
    const day = new Date(Date.UTC(2026, 2, d));
    const iso = day.toISOString().slice(0, 10);
    const offset = d >= 30 ? '+02:00' : '+01:00'; // 0:30 on the 29th is still winter time
    events.push(read(`${iso}T00:30:00${offset}`));
  }
  for (let i = 0; i < 5; i++)
    events.push({
      type: 'answer',
      at: at(`2026-04-03T01:0${i}:00+02:00`),
      ...zoneAt(BERLIN, at('2026-04-03T01:00:00+02:00')),
    });

  test('keeps the streak exactly as it was, whenever it runs (at 1:30 at night too)', () => {
    for (const iso of ['2026-04-03T01:30:00+02:00', '2026-04-03T03:59:00+02:00', '2026-04-03T12:00:00+02:00']) {
      const now = at(iso);
      const r = migrateRhythm(now, zoneAt(BERLIN, now).offsetMin);
      const before = computeStreak(events, now, BERLIN, MIDNIGHT);
      expect(computeStreak(events, now, BERLIN, dayStartAt(r))).toEqual(before);
      expect(before.current).toBe(15);
      // ...and the rest of that day and the next night, as time goes on, never turn today back into yesterday.
      for (let h = 0; h <= 30; h++) {
        const later = now + h * 3_600_000;
        const off = zoneAt(BERLIN, later).offsetMin;
        expect(rhythmDay(r, later, off)).toBeGreaterThanOrEqual(rhythmDay(r, now, zoneAt(BERLIN, now).offsetMin));
      }
    }
  });

  test('starts days at 4:00 from the switch on: midnight before, 4:00 after, the goal the streak rule', () => {
    const now = at('2026-05-04T02:00:00Z');
    const r = migrateRhythm(now, 0);
    expect(r.goal).toBe('streak-rule');
    expect(r.dayStarts).toEqual([
      { fromAt: 0, hour: 0 },
      { fromAt: at('2026-05-04T05:00:00Z'), hour: 4 },
    ]);
    expect(currentDayStartHour(r)).toBe(4);
    expect(switchAt(at('2026-05-04T12:00:00Z'), 0, 0, 4)).toBe(at('2026-05-04T12:00:00Z'));
  });
});

describe('changing the hour later', () => {
  test('keeps every earlier event on its day; a change still pending is replaced', () => {
    const r0: Rhythm = { v: 1, goal: 'streak-rule', dayStarts: [{ fromAt: 0, hour: 4 }], milestones: [] };
    const noon = at('2026-05-04T12:00:00Z');
    const r1 = withDayStartHour(r0, 6, noon, 0);
    expect(r1.dayStarts).toEqual([
      { fromAt: 0, hour: 4 },
      { fromAt: noon, hour: 6 },
    ]);
    // 5:00 that morning stays on the 4th (day started at 4:00 then); 5:00 next morning is still the 4th (6:00 now).
    expect(dayToIso(rhythmDay(r1, at('2026-05-04T05:00:00Z'), 0))).toBe('2026-05-04');
    expect(dayToIso(rhythmDay(r1, at('2026-05-05T05:00:00Z'), 0))).toBe('2026-05-04');
    const r2 = withDayStartHour(
      withDayStartHour(r0, 6, at('2026-05-04T01:00:00Z'), 0),
      5,
      at('2026-05-04T02:00:00Z'),
      0,
    );
    expect(r2.dayStarts.map((d) => d.hour)).toEqual([4, 5]);
    expect(() => withDayStartHour(r0, 25, noon, 0)).toThrow('A day starts at a whole hour from 0 to 23, not 25.');
    expect(withGoal(r0, 'answer-20').goal).toBe('answer-20');
  });
});

describe('the daily goal', () => {
  test('says where today stands for each goal', () => {
    expect(goalProgress('answer-10', { answersToday: 3, readToday: true })).toEqual({
      done: false,
      text: '3 of 10 questions answered today.',
    });
    expect(goalProgress('answer-20', { answersToday: 20, readToday: false }).done).toBe(true);
    expect(goalProgress('read-1', { answersToday: 30, readToday: false }).done).toBe(false);
    expect(goalProgress('read-1', { answersToday: 0, readToday: true }).done).toBe(true);
    expect(goalProgress('streak-rule', { answersToday: 0, readToday: true }).done).toBe(true);
    expect(goalProgress('streak-rule', { answersToday: 4, readToday: false }).text).toBe(
      '4 of 5 questions answered today (or read a card).',
    );
  });
});

describe('milestone notes at 7, 30 and 100 days', () => {
  const r0 = migrateRhythm(0, 0);
  test('each shows once: the day it is reached, until dismissed', () => {
    expect(milestoneToShow(r0, 6, 100)).toBeNull();
    expect(milestoneToShow(r0, 7, 100)).toBe(7);
    const shown = milestoneShown(r0, 7, 100);
    expect(milestoneToShow(shown, 7, 100)).toBe(7); // a reload that day shows it again
    expect(milestoneToShow(shown, 8, 101)).toBeNull(); // never on another day
    expect(milestoneToShow(milestoneDismissed(shown, 7, 100), 7, 100)).toBeNull();
  });
  test('a learner already at 45 days sees only the 30-day note, and then the 100-day one', () => {
    expect(milestoneToShow(r0, 45, 100)).toBe(30);
    const r = milestoneDismissed(r0, 30, 100);
    expect(r.milestones.map((m) => m.days).sort((a, b) => a - b)).toEqual([7, 30]);
    expect(milestoneToShow(r, 99, 154)).toBeNull();
    expect(milestoneToShow(r, 100, 155)).toBe(100);
  });
});

describe('the daily goal is asked once', () => {
  const fresh = migrateRhythm(Date.parse('2026-05-04T12:00:00Z'), 0);
  test('a new learner has not chosen; picking any goal, the default included, counts as chosen and is kept', () => {
    expect(goalWasChosen(fresh)).toBe(false);
    const picked = withGoal(fresh, 'streak-rule');
    expect(goalWasChosen(picked)).toBe(true);
    expect(parseRhythm(JSON.stringify(picked))).toEqual(picked);
  });
  test('a record from before the question, with a goal picked on /progress/, is not asked again', () => {
    const old = { ...fresh, goal: 'answer-20' as const };
    expect(goalWasChosen(parseRhythm(JSON.stringify(old))!)).toBe(true);
  });
  test('a goalChosen that is not true is refused (the rhythm is migrated, the log untouched)', () => {
    expect(parseRhythm(JSON.stringify({ ...fresh, goalChosen: 'yes' }))).toBeNull();
  });
});

describe('what the settings say about the day start is true now', () => {
  test('a first visit at 1 a.m.: today started at midnight, 4:00 from the switch on (not "counts for the evening")', () => {
    const now = new Date(2026, 4, 4, 1, 0).getTime(); // local 01:00
    const offset = -new Date(now).getTimezoneOffset();
    const r = migrateRhythm(now, offset);
    const note = dayStartNote(r, now, 'en-GB');
    expect(note).toBe(
      'Today your day started at midnight, as your days so far were counted; from 05:00 today on, a new day starts at 04:00, so practice after midnight counts for the evening before.',
    );
    // And it is what the streak rules do: 01:00 today is today's day, not yesterday's.
    expect(dayStartAt(r)(now)).toBe(0);
  });
  test('once the switch has passed, one plain sentence', () => {
    const now = new Date(2026, 4, 4, 1, 0).getTime();
    const r = migrateRhythm(now, -new Date(now).getTimezoneOffset());
    expect(dayStartNote(r, now + 6 * 3_600_000, 'en-GB')).toBe(
      'A new day starts at 04:00, so practice after midnight counts for the evening before.',
    );
    expect(dayStartNote(withDayStartHour(r, 0, now + 30 * 3_600_000, 0), now + 60 * 3_600_000)).toBe(
      'A new day starts at midnight.',
    );
  });
});
