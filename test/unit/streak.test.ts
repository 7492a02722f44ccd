import { describe, expect, test } from 'vitest';
import {
  activeDays,
  afterTodayEvent,
  computeStreak,
  countsDayAlone,
  dayCounts,
  dayNumber,
  dayToIso,
  EMPTY_DAY,
  freezesAfter,
  localDay,
  NO_STREAK,
  offsetMinutesIn,
  streakToday,
  tallyOf,
  type DayEvent,
} from '../../src/lib/streak.ts';
import { streakLabel } from '../../src/lib/streak-label.ts';

/** A card read at a wall-clock time with offset, in zone `tz` (offset computed from the zone's rules). */
const read = (iso: string, tz: string): DayEvent => ({ type: 'card-read', at: Date.parse(iso), tz });
const answer = (iso: string, tz: string): DayEvent => ({ type: 'answer', at: Date.parse(iso), tz });
const days = (events: DayEvent[]) => activeDays(events).map(dayToIso);

/** Reads one card a day at noon UTC on each listed day offset from 2026-06-01. */
const daily = (offsets: number[]): DayEvent[] =>
  offsets.map((d) => ({ type: 'card-read', at: Date.UTC(2026, 5, 1 + d, 12), tz: 'UTC', offsetMin: 0 }));
const noonUtc = (d: number) => Date.UTC(2026, 5, 1 + d, 12);

describe('offsetMinutesIn', () => {
  test('follows DST rules and fixed offsets', () => {
    expect(offsetMinutesIn('Europe/Berlin', Date.UTC(2026, 0, 15))).toBe(60);
    expect(offsetMinutesIn('Europe/Berlin', Date.UTC(2026, 6, 15))).toBe(120);
    expect(offsetMinutesIn('America/New_York', Date.UTC(2026, 6, 15))).toBe(-240);
    expect(offsetMinutesIn('Asia/Kolkata', Date.UTC(2026, 6, 15))).toBe(330);
    expect(offsetMinutesIn('UTC-03:30', 0)).toBe(-210);
  });

  test('switches exactly at the Berlin spring-forward instant (01:00 UTC)', () => {
    expect(offsetMinutesIn('Europe/Berlin', Date.parse('2026-03-29T00:59:00Z'))).toBe(60);
    expect(offsetMinutesIn('Europe/Berlin', Date.parse('2026-03-29T01:00:00Z'))).toBe(120);
  });
});

describe('activeDays', () => {
  test('counts a day with 5 answers but not with 4', () => {
    const four = [1, 2, 3, 4].map((m) => answer(`2026-05-04T10:0${m}:00+02:00`, 'Europe/Berlin'));
    expect(days(four)).toEqual([]);
    expect(days([...four, answer('2026-05-04T22:00:00+02:00', 'Europe/Berlin')])).toEqual(['2026-05-04']);
  });

  test('a completed lab counts the day on its own; a saved card does not', () => {
    expect(
      days([{ type: 'lab-done', at: Date.parse('2026-05-06T20:00:00+02:00'), tz: 'Europe/Berlin', passed: true }]),
    ).toEqual(['2026-05-06']);
    expect(
      days([{ type: 'lab-done', at: Date.parse('2026-05-06T20:00:00+02:00'), tz: 'Europe/Berlin', passed: false }]),
    ).toEqual([]);
    expect(days([{ type: 'save', at: Date.parse('2026-05-06T20:00:00+02:00'), tz: 'Europe/Berlin' }])).toEqual([]);
  });

  test('uses the recorded offset when there is one', () => {
    // 23:30 local at +14:00 is still the 4th there, though it is the 4th 09:30 UTC.
    expect(
      days([{ type: 'card-read', at: Date.parse('2026-05-04T09:30:00Z'), tz: 'Pacific/Kiritimati', offsetMin: 840 }]),
    ).toEqual(['2026-05-04']);
    expect(localDay(Date.parse('2026-05-04T23:30:00Z'), 'Pacific/Kiritimati')).toBe(
      localDay(Date.parse('2026-05-05T00:00:00Z'), 'UTC'),
    );
  });
});

describe('computeStreak across DST', () => {
  test('keeps the streak across the Berlin spring-forward (23-hour day)', () => {
    const tz = 'Europe/Berlin';
    const events = [
      read('2026-03-28T23:30:00+01:00', tz),
      read('2026-03-29T12:00:00+02:00', tz),
      read('2026-03-30T00:30:00+02:00', tz),
    ];
    expect(days(events)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
    const s = computeStreak(events, Date.parse('2026-03-30T10:00:00+02:00'), tz);
    expect(s.current).toBe(3);
    expect(s.todayDone).toBe(true);
  });

  test('does not count the Berlin fall-back day twice (25-hour day)', () => {
    const tz = 'Europe/Berlin';
    const events = [
      read('2026-10-25T00:30:00+02:00', tz),
      read('2026-10-25T02:30:00+02:00', tz),
      read('2026-10-25T02:30:00+01:00', tz),
      read('2026-10-25T23:30:00+01:00', tz),
      read('2026-10-26T00:30:00+01:00', tz),
    ];
    expect(days(events)).toEqual(['2026-10-25', '2026-10-26']);
    expect(computeStreak(events, Date.parse('2026-10-26T09:00:00+01:00'), tz).current).toBe(2);
  });

  test('keeps the streak across the New York spring-forward', () => {
    const tz = 'America/New_York';
    const events = [
      read('2026-03-07T23:30:00-05:00', tz),
      read('2026-03-08T23:30:00-04:00', tz),
      read('2026-03-09T00:30:00-04:00', tz),
    ];
    expect(days(events)).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
    expect(computeStreak(events, Date.parse('2026-03-09T08:00:00-04:00'), tz).current).toBe(3);
  });

  test('counts answers in the repeated New York fall-back hour as one day', () => {
    const tz = 'America/New_York';
    const events = [
      ...[10, 20, 30].map((m) => answer(`2026-11-01T01:${m}:00-04:00`, tz)),
      ...[10, 20].map((m) => answer(`2026-11-01T01:${m}:00-05:00`, tz)),
    ];
    expect(days(events)).toEqual(['2026-11-01']);
    const s = computeStreak(events, Date.parse('2026-11-01T20:00:00-05:00'), tz);
    expect(s).toMatchObject({ current: 1, longest: 1, todayDone: true });
  });
});

describe('computeStreak when travelling', () => {
  test('counts the date lived twice on a Tokyo → Los Angeles flight once', () => {
    const events = [
      read('2026-07-10T09:00:00+09:00', 'Asia/Tokyo'),
      read('2026-07-11T09:00:00+09:00', 'Asia/Tokyo'), // departs 18:00 JST on the 11th...
      read('2026-07-11T20:00:00-07:00', 'America/Los_Angeles'), // ...lands 11:00 PDT on the 11th
      read('2026-07-12T09:00:00-07:00', 'America/Los_Angeles'),
    ];
    expect(days(events)).toEqual(['2026-07-10', '2026-07-11', '2026-07-12']);
    const s = computeStreak(events, Date.parse('2026-07-12T21:00:00-07:00'), 'America/Los_Angeles');
    expect(s).toMatchObject({ current: 3, longest: 3 });
  });

  test('a day in Tokyo and the next in Los Angeles are consecutive, though UTC dates are not', () => {
    const events = [
      read('2026-07-10T08:00:00+09:00', 'Asia/Tokyo'),
      read('2026-07-11T22:00:00-07:00', 'America/Los_Angeles'),
    ];
    // UTC dates: 07-09 and 07-12; local dates: 07-10 and 07-11.
    expect(days(events)).toEqual(['2026-07-10', '2026-07-11']);
    expect(computeStreak(events, Date.parse('2026-07-11T23:00:00-07:00'), 'America/Los_Angeles').current).toBe(2);
  });
});

describe('computeStreak freezes', () => {
  test('spends an earned freeze on a missed day and keeps the streak', () => {
    const s = computeStreak(daily([0, 1, 2, 3, 4, 5, 6, 8]), noonUtc(8), 'UTC');
    expect(s).toMatchObject({ current: 8, longest: 8, freezesHeld: 0, frozenDays: ['2026-06-08'] });
  });

  test('without a freeze a missed day ends the streak', () => {
    const s = computeStreak(daily([0, 1, 2, 3, 4, 5, 7]), noonUtc(7), 'UTC');
    expect(s).toMatchObject({ current: 1, longest: 6, freezesHeld: 0, frozenDays: [] });
  });

  test('holds at most 2 freezes', () => {
    const s = computeStreak(daily([...Array(21).keys()]), noonUtc(20), 'UTC');
    expect(s).toMatchObject({ current: 21, freezesHeld: 2 });
  });

  test('keeps freezes when the gap is longer than the freezes held', () => {
    const s = computeStreak(daily([0, 1, 2, 3, 4, 5, 6, 9]), noonUtc(9), 'UTC');
    expect(s).toMatchObject({ current: 1, longest: 7, freezesHeld: 1, frozenDays: [] });
  });

  test('spends a freeze on yesterday while today is still pending', () => {
    const s = computeStreak(daily([0, 1, 2, 3, 4, 5, 6]), noonUtc(8), 'UTC');
    expect(s).toMatchObject({ current: 7, freezesHeld: 0, todayDone: false, frozenDays: ['2026-06-08'] });
  });

  test('an unfinished today never breaks the streak', () => {
    const s = computeStreak(daily([0, 1, 2]), noonUtc(3), 'UTC');
    expect(s).toMatchObject({ current: 3, todayDone: false });
  });

  test('two missed days before today end the streak', () => {
    expect(computeStreak(daily([0, 1, 2]), noonUtc(5), 'UTC').current).toBe(0);
  });

  test('the week strip shows active, frozen, missed and pending days', () => {
    const s = computeStreak(daily([0, 1, 2, 3, 4, 5, 6, 8]), noonUtc(10), 'UTC');
    expect(s.week.map((d) => d.status)).toEqual([
      'active',
      'active',
      'active',
      'frozen',
      'active',
      'missed',
      'pending',
    ]);
    expect(s.week.at(-1)).toMatchObject({ day: '2026-06-11', weekday: 3 });
    expect(s.current).toBe(0);
  });
});

describe('the rules, each in one place', () => {
  test('a card read or a passed lab counts the day alone; a failed lab does not', () => {
    expect(countsDayAlone({ type: 'card-read' })).toBe(true);
    expect(countsDayAlone({ type: 'lab-done', passed: true })).toBe(true);
    expect(countsDayAlone({ type: 'lab-done', passed: false })).toBe(false);
    expect(countsDayAlone({ type: 'answer' })).toBe(false);
  });

  test('5 answers count the day, 4 do not', () => {
    expect(dayCounts({ answersToday: 4, readToday: false })).toBe(false);
    expect(dayCounts({ answersToday: 5, readToday: false })).toBe(true);
    expect(dayCounts({ answersToday: 0, readToday: true })).toBe(true);
  });

  test('a freeze is earned at every 7th day of a run, and at most 2 are held', () => {
    expect(freezesAfter(7, 0)).toBe(1);
    expect(freezesAfter(8, 1)).toBe(1);
    expect(freezesAfter(14, 1)).toBe(2);
    expect(freezesAfter(21, 2)).toBe(2);
  });

  test('day numbers from a recorded offset', () => {
    expect(dayNumber(Date.parse('2026-05-04T23:30:00+02:00'), 120)).toBe(20577);
    expect(dayToIso(20577)).toBe('2026-05-04');
    expect(offsetMinutesIn('Europe/Berlin', Date.UTC(2026, 6, 1))).toBe(120);
  });
});

describe("the header badge's summary of today", () => {
  test('an empty log: today makes a streak of 1, with no freeze yet', () => {
    expect(streakToday(NO_STREAK, EMPTY_DAY, 20577, 'UTC')).toEqual({
      day: 20577,
      tz: 'UTC',
      startHour: 0,
      current: 0,
      todayDone: false,
      freezesHeld: 0,
      currentIfTodayDone: 1,
      freezesIfTodayDone: 0,
      answersToday: 0,
      readToday: false,
    });
  });

  test('followed event by event, it agrees with the streak computed from the whole log', () => {
    const now = noonUtc(6);
    const log = daily([0, 1, 2, 3, 4, 5]); // a 6-day run: today would be the 7th day, which earns a freeze
    const at = (i: number) => ({ at: now + i * 60_000, tz: 'UTC', offsetMin: 0 });
    // Five answers and, among them, a failed lab: looked at, never counted.
    const today: DayEvent[] = [0, 1, 2, 3, 4].map((i) => ({ type: 'answer', ...at(i) }));
    today.splice(2, 0, { type: 'lab-done', passed: false, ...at(2) });
    const day = localDay(now, 'UTC');
    let badge = streakToday(computeStreak(log, now, 'UTC'), EMPTY_DAY, day, 'UTC');
    for (const [i, e] of today.entries()) {
      badge = afterTodayEvent(badge, e);
      const events = [...log, ...today.slice(0, i + 1)];
      const full = computeStreak(events, now, 'UTC');
      expect([badge.current, badge.todayDone, badge.freezesHeld]).toEqual([
        full.current,
        full.todayDone,
        full.freezesHeld,
      ]);
      expect(streakToday(full, tallyOf(events, day, now), day, 'UTC')).toEqual(badge);
    }
    expect(badge).toMatchObject({ current: 7, todayDone: true, freezesHeld: 1, answersToday: 5 });
  });

  test('an event streaks do not look at leaves the summary as it was', () => {
    const badge = streakToday(NO_STREAK, EMPTY_DAY, 20577, 'UTC');
    expect(afterTodayEvent(badge, { type: 'saved' })).toBe(badge);
    expect(afterTodayEvent(badge, { type: 'lab-done', passed: false })).toBe(badge);
    expect(afterTodayEvent(badge, { type: 'card-read' })).toMatchObject({ current: 1, todayDone: true });
  });
});

describe('streakLabel', () => {
  test('says the streak, today and the freezes held', () => {
    expect(streakLabel({ current: 3, todayDone: true, freezesHeld: 1 })).toBe(
      'Streak: 3 days, today done. 1 freeze held. Open your progress.',
    );
    expect(streakLabel({ current: 0, todayDone: false, freezesHeld: 0 })).toBe(
      'Streak: 0 days, Read a card or answer 5 questions to start one. Open your progress.',
    );
  });
});
