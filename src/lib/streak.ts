/**
 * Streaks, computed from the event log. Pure: `now` and the current zone are always passed in.
 *
 * Rules
 * - A local day counts when the learner reads a card to the end, or answers at least 5 questions
 *   (undone answers excluded by the caller), in that day.
 * - "Local day" is the calendar date in the zone where each event happened: every event carries
 *   its zone and UTC offset at that moment, so a DST change or a flight never moves an event to
 *   another date. Dates are numbered (days since 1970-01-01), so consecutive dates are consecutive
 *   integers whatever the clock did (a 23- or 25-hour day is still one day). Flying west over the
 *   date line (Tokyo → Los Angeles) lives the same date twice: it counts once.
 * - Freezes: one earned each time the current run reaches 7, 14, 21... active days; at most 2
 *   held. Missed days between two active days (or before today) are covered by freezes when
 *   there are enough for the whole gap; a frozen day keeps the streak but does not add to it.
 *   When the gap is longer than the freezes held, the streak ends and the freezes are kept.
 * - Today not done yet is "pending": it never breaks the streak.
 */
import type { Zone } from '../schemas/progress-event.ts';
import { ANSWERS_PER_DAY, dayNumber, FREEZE_EVERY_DAYS, MAX_FREEZES, MS_PER_DAY } from './days.ts';

export { ANSWERS_PER_DAY, dayNumber, FREEZE_EVERY_DAYS, MAX_FREEZES, MS_PER_DAY } from './days.ts';

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
 * The local calendar date of an instant, as days since 1970-01-01. Uses the recorded offset when
 * there is one, else the zone's rules.
 */
export function localDay(at: number, tz: string, offsetMin?: number): number {
  return dayNumber(at, offsetMin ?? offsetMinutesIn(tz, at));
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

/** The local days that count, ascending (day numbers). */
export function activeDays(events: readonly DayEvent[]): number[] {
  const answers = new Map<number, number>();
  const days = new Set<number>();
  for (const e of events) {
    // A card read to its end, or a lab completed, counts the day on its own.
    if (e.type === 'card-read' || (e.type === 'lab-done' && e.passed !== false))
      days.add(localDay(e.at, e.tz, e.offsetMin));
    else if (e.type === 'answer') {
      const d = localDay(e.at, e.tz, e.offsetMin);
      const n = (answers.get(d) ?? 0) + 1;
      answers.set(d, n);
      if (n >= ANSWERS_PER_DAY) days.add(d);
    }
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
 * learner is in now, an IANA name).
 * @example computeStreak(snapshot.answersAndReads, Date.now(), 'Europe/Berlin').current
 */
export function computeStreak(events: readonly DayEvent[], now: number, tz: string): StreakSummary {
  const days = activeDays(events);
  const today = localDay(now, tz);
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
    if (run % FREEZE_EVERY_DAYS === 0) freezes = Math.min(MAX_FREEZES, freezes + 1);
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
