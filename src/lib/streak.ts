/**
 * Streaks, computed from the event log. Pure: `now` and the current zone are always passed in.
 * The rules in words are below; each is written once, here or, for those the light write path
 * needs too, in streak-rules.ts (no Intl; re-exported here, so callers import from this file).
 *
 * Rules
 * - A local day counts when the learner reads a card to the end or passes a lab (every check
 *   passed), or answers at least 5 questions (undone answers excluded by the caller), in that day
 *   (`countsDayAlone`, `dayCounts`).
 * - "Local day" is the calendar date in the zone where each event happened: every event carries
 *   its zone and UTC offset at that moment, so a DST change or a flight never moves an event to
 *   another date. Dates are numbered (days since 1970-01-01), so consecutive dates are consecutive
 *   integers whatever the clock did (a 23- or 25-hour day is still one day). Flying west over the
 *   date line (Tokyo → Los Angeles) lives the same date twice: it counts once.
 * - Freezes: one earned each time the current run reaches 7, 14, 21... active days; at most 2
 *   held (`freezesAfter`). Missed days between two active days (or before today) are covered by
 *   freezes when there are enough for the whole gap; a frozen day keeps the streak but does not
 *   add to it. When the gap is longer than the freezes held, the streak ends and the freezes are kept.
 * - Today not done yet is "pending": it never breaks the streak.
 *
 * The header badge follows today without the log (src/store/append.ts on pages that only write
 * progress) from a `StreakToday` summary: `streakToday` builds it, `afterTodayEvent` updates it.
 */
import type { Zone } from '../schemas/progress-event.ts';
import {
  dayNumber,
  EMPTY_DAY,
  freezesAfter,
  dayCounts,
  isStreakEvent,
  MS_PER_DAY,
  tallied,
  type DayTally,
} from './streak-rules.ts';

export * from './streak-rules.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, number>();

/**
 * The UTC offset in minutes (east positive) of `tz` at instant `at`. Accepts IANA names and
 * "UTC±hh:mm". Results are cached per zone and 15-minute slot (every offset and every DST switch
 * in use falls on a 15-minute boundary).
 * @example offsetMinutesIn('Europe/Berlin', Date.UTC(2026, 6, 1)) // 120
 */
export function offsetMinutesIn(tz: string, at: number): number {
  const fixed = /^UTC([+-])(\d{2}):(\d{2})$/.exec(tz);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  const slot = Math.floor(at / 900_000);
  const key = `${tz}|${slot}`;
  const hit = offsetCache.get(key);
  if (hit !== undefined) return hit;
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(tz, f);
  }
  const t = slot * 900_000;
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const local = Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0);
  const offset = Math.round((local - t) / 60_000);
  if (offsetCache.size > 50_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

/**
 * The local day of an instant, as days since 1970-01-01, for a day starting at `startHour` (0 = midnight).
 * Uses the recorded offset when there is one, else the zone's rules.
 */
export function localDay(at: number, tz: string, offsetMin?: number, startHour = 0): number {
  return dayNumber(at, offsetMin ?? offsetMinutesIn(tz, at), startHour);
}

/**
 * The hour (local, 0–23) at which the day containing instant `at` starts: the learner's choice in
 * effect then (src/lib/rhythm.ts `dayStartAt`), so changing it never moves an earlier event.
 */
export type DayStartAt = (at: number) => number;

/** Days start at midnight (the rule before the learner could choose). */
export const MIDNIGHT: DayStartAt = () => 0;

/** The zone at `at` as an event records it, for a zone name. */
export function zoneAt(tz: string, at: number): Zone {
  return { tz, offsetMin: offsetMinutesIn(tz, at) };
}

/** Day number → "YYYY-MM-DD". */
export function dayToIso(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Day number → weekday, Monday = 0 ... Sunday = 6. */
export function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

/** The events streaks look at (others are ignored). */
export interface DayEvent {
  type: string;
  at: number;
  tz: string;
  offsetMin?: number;
  /** On lab completions: whether every check passed (only a passed lab counts the day). */
  passed?: boolean;
}

/** The local days that count, ascending (day numbers). */
export function activeDays(events: readonly DayEvent[], startAt: DayStartAt = MIDNIGHT): number[] {
  const tallies = new Map<number, DayTally>();
  const days = new Set<number>();
  for (const e of events) {
    if (!isStreakEvent(e)) continue;
    const d = localDay(e.at, e.tz, e.offsetMin, startAt(e.at));
    const t = tallied(tallies.get(d) ?? EMPTY_DAY, e);
    tallies.set(d, t);
    if (dayCounts(t)) days.add(d);
  }
  return [...days].sort((a, b) => a - b);
}

export type DayStatus = 'active' | 'frozen' | 'missed' | 'pending';

export interface StreakSummary {
  /** Active days in the run that is still alive today (0 when broken). */
  current: number;
  /** Longest run of active days ever (freezes bridge runs, not lengthen them). */
  longest: number;
  /** Freezes held now (0–2). */
  freezesHeld: number;
  /** Whether today already counts. */
  todayDone: boolean;
  /** Days a freeze was spent on, "YYYY-MM-DD", ascending. */
  frozenDays: string[];
  /** The last 7 local days, oldest first, for the home page's week strip. */
  week: { day: string; weekday: number; status: DayStatus }[];
}

/**
 * Current and longest streak, freezes and the week strip, as of `now` in zone `tz` (the zone the
 * learner is in now, an IANA name). `events`: active answers, card reads and lab completions.
 * `startAt`: when each day starts (midnight unless the learner chose another hour: src/lib/rhythm.ts).
 * @example
 * const read = (iso: string): DayEvent => ({ type: 'card-read', at: Date.parse(iso), tz: 'Europe/Berlin' });
 * const events = [read('2026-03-28T23:30:00+01:00'), read('2026-03-29T12:00:00+02:00'), read('2026-03-30T00:30:00+02:00')];
 * computeStreak(events, Date.parse('2026-03-30T10:00:00+02:00'), 'Europe/Berlin').current // 3, across the 23-hour day
 */
export function computeStreak(
  events: readonly DayEvent[],
  now: number,
  tz: string,
  startAt: DayStartAt = MIDNIGHT,
): StreakSummary {
  const days = activeDays(events, startAt);
  const today = localDay(now, tz, undefined, startAt(now));
  const status = new Map<number, DayStatus>();
  let run = 0;
  let longest = 0;
  let freezes = 0;
  const frozen: number[] = [];
  let prev: number | null = null;

  /** Handles the missed days between `prev` and `next` (exclusive); true when the run survives. */
  const bridge = (next: number): void => {
    if (prev === null) return;
    const gap = next - prev - 1;
    if (gap <= 0) return;
    if (run > 0 && gap <= freezes) {
      freezes -= gap;
      for (let d = prev + 1; d < next; d++) {
        frozen.push(d);
        status.set(d, 'frozen');
      }
    } else {
      run = 0;
      for (let d = prev + 1; d < next; d++) status.set(d, 'missed');
    }
  };

  for (const d of days) {
    if (d > today) break; // a clock set back later: ignore days beyond today
    bridge(d);
    run += 1;
    freezes = freezesAfter(run, freezes);
    longest = Math.max(longest, run);
    status.set(d, 'active');
    prev = d;
  }
  const todayDone = prev === today;
  if (!todayDone) {
    bridge(today);
    status.set(today, 'pending');
  }
  const week = [];
  for (let d = today - 6; d <= today; d++)
    week.push({ day: dayToIso(d), weekday: weekdayOf(d), status: status.get(d) ?? 'missed' });
  return {
    current: prev === null ? 0 : run,
    longest,
    freezesHeld: freezes,
    todayDone,
    frozenDays: frozen.map(dayToIso),
    week,
  };
}

/** The tally of local day `day` in `events` (those of the last two days are looked at). */
export function tallyOf(
  events: readonly DayEvent[],
  day: number,
  now: number,
  startAt: DayStartAt = MIDNIGHT,
): DayTally {
  let tally: DayTally = EMPTY_DAY;
  for (const e of events)
    if (e.at > now - 2 * MS_PER_DAY && localDay(e.at, e.tz, e.offsetMin, startAt(e.at)) === day)
      tally = tallied(tally, e);
  return tally;
}
