/**
 * The streak rules, each written once: what counts a day, what a freeze is worth, and how the
 * header badge follows today without the log. Pure, and light: no zone rules (Intl), so pages that
 * only write progress (src/store/append.ts, in every page's boot chunk) load no more than this.
 * streak.ts applies these rules to an event log (and re-exports everything here); read its
 * opening comment for the rules in words.
 */

/** Answers in one local day that make it count. */
export const ANSWERS_PER_DAY = 5;
/** Active days in a run that earn one freeze. */
export const FREEZE_EVERY_DAYS = 7;
/** Freezes held at most. */
export const MAX_FREEZES = 2;

export const MS_PER_DAY = 86_400_000;

/**
 * The local date of an instant at UTC offset `offsetMin` (minutes, east positive), as days since 1970-01-01,
 * for a day that starts at `startHour` local time (0 = midnight; src/lib/rhythm.ts keeps the learner's choice).
 * @example dayNumber(Date.parse('2026-05-04T23:30:00+02:00'), 120) // 20577 (2026-05-04)
 * @example dayNumber(Date.parse('2026-05-05T03:30:00+02:00'), 120, 4) // 20577 (still 2026-05-04's day)
 */
export function dayNumber(at: number, offsetMin: number, startHour = 0): number {
  return Math.floor((at + offsetMin * 60_000 - startHour * 3_600_000) / MS_PER_DAY);
}

/** What the rules look at to tell whether an event counts. */
export type EventKind = { type: string; passed?: boolean | undefined };

/**
 * Whether an event counts its local day on its own: a card read to its end, or a lab with every check passed.
 * @example countsDayAlone({ type: 'lab-done', passed: false }) // false
 */
export function countsDayAlone(e: EventKind): boolean {
  return e.type === 'card-read' || (e.type === 'lab-done' && e.passed === true);
}

/** Whether streaks look at an event at all: an answer, or an event that counts its day alone. */
export function isStreakEvent(e: EventKind): boolean {
  return e.type === 'answer' || countsDayAlone(e);
}

/** What one local day holds so far, as far as streaks care. */
export interface DayTally {
  /** Answers that day that still count. */
  answersToday: number;
  /** Whether a card was read to its end (or a lab passed) that day: either counts the day alone. */
  readToday: boolean;
}

/** A day with nothing in it yet. */
export const EMPTY_DAY: Readonly<DayTally> = Object.freeze({ answersToday: 0, readToday: false });

/** The tally after one more event of that day (events streaks do not look at change nothing). */
export function tallied(t: DayTally, e: EventKind): DayTally {
  if (countsDayAlone(e)) return { ...t, readToday: true };
  if (e.type === 'answer') return { ...t, answersToday: t.answersToday + 1 };
  return t;
}

/**
 * Whether a day with this tally counts: a card read or a lab passed, or 5 answers.
 * @example dayCounts({ answersToday: 4, readToday: false }) // false
 */
export function dayCounts(t: DayTally): boolean {
  return t.readToday || t.answersToday >= ANSWERS_PER_DAY;
}

/**
 * Freezes held once a run reaches `run` active days, from `held` before that day: one more at
 * each multiple of 7 days, at most 2.
 * @example freezesAfter(14, 1) // 2
 */
export function freezesAfter(run: number, held: number): number {
  return run % FREEZE_EVERY_DAYS === 0 ? Math.min(MAX_FREEZES, held + 1) : held;
}

/** The part of a streak that the header badge shows. */
export interface StreakNow {
  /** Active days in the run that is still alive today (0 when broken). */
  current: number;
  /** Whether today already counts. */
  todayDone: boolean;
  /** Freezes held now (0–2). */
  freezesHeld: number;
}

/**
 * What the header badge needs to follow today without the log: the streak now, what it becomes
 * once today counts, and today's tally (src/store/page-signals.ts caches it as `StreakCache`).
 */
export interface StreakToday extends DayTally {
  /** The local day (days since 1970-01-01 in `tz`) this summary is for; stale on any other day. */
  day: number;
  tz: string;
  /** The hour (local) at which `day` started (src/lib/rhythm.ts); absent in summaries cached before it existed: 0. */
  startHour?: number;
  current: number;
  todayDone: boolean;
  freezesHeld: number;
  /** The streak once today counts (= current when it already does). */
  currentIfTodayDone: number;
  /** Freezes held once today counts. */
  freezesIfTodayDone: number;
  /**
   * The six days before `day`, oldest first, as the week strip shows them (src/lib/streak.ts `DayStatus`), so home
   * can draw the week before the store loads; absent in summaries from the write path's first day or older caches.
   */
  weekBefore?: readonly string[];
}

/** The streak of an empty log. */
export const NO_STREAK: Readonly<StreakNow> = Object.freeze({
  current: 0,
  todayDone: false,
  freezesHeld: 0,
});

/**
 * Today's summary for `streak`, with today's `tally`. A pending today, once it counts, adds one
 * day to the run (a broken run restarts at 1), which may earn a freeze.
 * @example streakToday(NO_STREAK, EMPTY_DAY, 20577, 'UTC').currentIfTodayDone // 1
 */
export function streakToday(streak: StreakNow, tally: DayTally, day: number, tz: string, startHour = 0): StreakToday {
  const run = streak.current + 1;
  return {
    day,
    tz,
    startHour,
    current: streak.current,
    todayDone: streak.todayDone,
    freezesHeld: streak.freezesHeld,
    currentIfTodayDone: streak.todayDone ? streak.current : run,
    freezesIfTodayDone: streak.todayDone ? streak.freezesHeld : freezesAfter(run, streak.freezesHeld),
    answersToday: tally.answersToday,
    readToday: tally.readToday,
  };
}

/**
 * Today's summary after one more event of today: a card read, a passed lab or the 5th answer makes
 * today count. The same object for an event streaks do not look at.
 */
export function afterTodayEvent<T extends StreakToday>(today: T, e: EventKind): T {
  if (!isStreakEvent(e)) return today;
  const next: T = { ...today, ...tallied(today, e) };
  if (!today.todayDone && dayCounts(next)) {
    next.todayDone = true;
    next.current = today.currentIfTodayDone;
    next.freezesHeld = today.freezesIfTodayDone;
  }
  return next;
}
