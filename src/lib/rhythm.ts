/**
 * The learner's daily rhythm: a daily goal, the hour a new day starts, and the streak milestones
 * already noted. Pure: parsing (validated on read), the migration for a learner who had none, and
 * the rules; src/store/rhythm.ts keeps it on the device.
 *
 * Stored shape (v1), JSON:
 *   { v: 1, goal: DailyGoal, goalChosen?: true, dayStarts: [{ fromAt, hour }, ...], milestones: [{ days, shownDay, dismissed }] }
 * - `goalChosen`: the learner picked the goal (home asks once, src/components/DailyGoal.astro); absent until then,
 *   and in records written before it existed (a goal other than the default counts as chosen).
 * - `dayStarts`: every hour chosen, oldest first; each applies to events from `fromAt` (epoch ms) on,
 *   so a new choice never moves an earlier event to another day: past streaks and history stay as
 *   they were counted. The first entry (`fromAt` 0) is midnight, the rule before there was a choice.
 * - A change takes effect when the old and the new hour agree on the date (`switchAt`): at once
 *   after both hours have passed today, else at the later of them today, so today never turns
 *   back into yesterday and no event moves.
 * - Migration (no record, or one that fails validation): midnight for everything before, 4:00 (as
 *   Anki) from the switch on. The streak of a learner with no settings is unchanged: every event
 *   they have was counted at midnight and still is.
 * - The goal is the learner's own target for a day, shown with today's progress; the streak keeps
 *   its rule (src/lib/streak-rules.ts), which is also the default goal.
 */
import { ANSWERS_PER_DAY, dayNumber, MS_PER_DAY, type DayTally } from './streak-rules.ts';
import { clockTime, hourOfDay } from './locale.ts';

/** The goals a learner can pick. */
export const DAILY_GOALS = ['streak-rule', 'read-1', 'answer-10', 'answer-20'] as const;
export type DailyGoal = (typeof DAILY_GOALS)[number];

/** How each goal reads in the settings. */
export const GOAL_LABELS: Record<DailyGoal, string> = {
  'streak-rule': `Read a card or answer ${ANSWERS_PER_DAY} questions`,
  'read-1': 'Read 1 card',
  'answer-10': 'Answer 10 questions',
  'answer-20': 'Answer 20 questions',
};

/** A new learner's day starts at 4:00, as Anki's does: a late-night session still counts for the evening's day. */
export const DEFAULT_DAY_START_HOUR = 4;

/**
 * A day-start hour as the settings list it, in the locale's clock ("4:00 AM" or "04:00") and saying which is midnight
 * and which the default.
 * @example dayStartLabel(4, 'en-GB') // "04:00 (default, as Anki)"
 */
export function dayStartLabel(hour: number, locale?: string | null): string {
  const notes = `${hour === 0 ? ' (midnight)' : ''}${hour === DEFAULT_DAY_START_HOUR ? ' (default, as Anki)' : ''}`;
  return `${hourOfDay(hour, locale)}${notes}`;
}
/** Streak lengths that earn a quiet note, once each. */
export const MILESTONES = [7, 30, 100] as const;
/** At most this many hour changes are kept (the oldest are merged into their successor's start). */
const MAX_DAY_STARTS = 50;

/** One hour choice and when it took effect. */
export interface DayStart {
  /** Epoch ms from which this hour applies (0 for the first). */
  fromAt: number;
  /** Local hour (0–23) at which a day starts. */
  hour: number;
}

/** A milestone note: the day it was first shown, and whether the learner dismissed it. */
export interface MilestoneNote {
  days: number;
  shownDay: number;
  dismissed: boolean;
}

export interface Rhythm {
  v: 1;
  goal: DailyGoal;
  /** The learner picked the goal (home asks until then). */
  goalChosen?: true;
  dayStarts: DayStart[];
  milestones: MilestoneNote[];
}

const isHour = (h: unknown): h is number => Number.isInteger(h) && (h as number) >= 0 && (h as number) <= 23;
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The stored rhythm, validated: null for nothing stored, text that is not JSON, or any field out of
 * shape (the caller then migrates, which loses no progress: the event log is untouched).
 */
export function parseRhythm(text: string | null): Rhythm | null {
  if (text === null) return null;
  let x: unknown;
  try {
    x = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(x) || x['v'] !== 1) return null;
  const { goal, dayStarts, milestones } = x;
  if (!DAILY_GOALS.includes(goal as DailyGoal)) return null;
  if (!Array.isArray(dayStarts) || dayStarts.length === 0 || dayStarts.length > MAX_DAY_STARTS) return null;
  let prev = -Infinity;
  for (const d of dayStarts) {
    if (!isRecord(d) || !isHour(d['hour']) || typeof d['fromAt'] !== 'number' || !Number.isFinite(d['fromAt']))
      return null;
    if (d['fromAt'] < prev) return null;
    prev = d['fromAt'];
  }
  if (!Array.isArray(milestones)) return null;
  for (const m of milestones)
    if (
      !isRecord(m) ||
      !MILESTONES.includes(m['days'] as (typeof MILESTONES)[number]) ||
      !Number.isInteger(m['shownDay']) ||
      typeof m['dismissed'] !== 'boolean'
    )
      return null;
  if (x['goalChosen'] !== undefined && x['goalChosen'] !== true) return null;
  return {
    v: 1,
    goal: goal as DailyGoal,
    ...(x['goalChosen'] === true ? { goalChosen: true as const } : {}),
    dayStarts: dayStarts.map((d: DayStart) => ({ fromAt: d.fromAt, hour: d.hour })),
    milestones: milestones.map((m: MilestoneNote) => ({ days: m.days, shownDay: m.shownDay, dismissed: m.dismissed })),
  };
}

/**
 * When a change of the day's start from hour `from` to hour `to`, asked at `now` (UTC offset
 * `offsetMin` then), takes effect: the first instant from `now` on at which both rules give the
 * same date: at once when the later of the two hours has passed today (local), else an hour after it.
 * @example switchAt(Date.parse('2026-05-04T02:00:00Z'), 0, 0, 4) // Date.parse('2026-05-04T05:00:00Z') (an hour's margin for DST)
 */
export function switchAt(now: number, offsetMin: number, from: number, to: number): number {
  const intoDayMs = (((now + offsetMin * 60_000) % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  const laterMs = Math.max(from, to) * 3_600_000;
  // An hour later than the later hour: a clock set back overnight (DST ends) puts that hour an hour
  // later than `offsetMin` says, and switching later than needed is always safe.
  return intoDayMs >= laterMs ? now : now + (laterMs - intoDayMs) + 3_600_000;
}

/**
 * The rhythm of a learner who has none stored yet: days start at midnight for everything before
 * (as their streak was counted) and at 4:00 from the switch on; the goal is the streak rule.
 * @example migrateRhythm(Date.parse('2026-05-04T12:00:00Z'), 0).dayStarts // [{ fromAt: 0, hour: 0 }, { fromAt: Date.parse('2026-05-04T12:00:00Z'), hour: 4 }]
 */
export function migrateRhythm(now: number, offsetMin: number): Rhythm {
  const first: Rhythm = { v: 1, goal: 'streak-rule', dayStarts: [{ fromAt: 0, hour: 0 }], milestones: [] };
  return withDayStartHour(first, DEFAULT_DAY_START_HOUR, now, offsetMin);
}

/** The hour at which the day containing `at` starts, under the choice in effect at `at`. */
export function dayStartHourAt(r: Rhythm, at: number): number {
  let hour = r.dayStarts[0]!.hour;
  for (const d of r.dayStarts) {
    if (d.fromAt > at) break;
    hour = d.hour;
  }
  return hour;
}

/** `dayStartHourAt` bound to a rhythm, in the shape src/lib/streak.ts takes (`DayStartAt`). */
export function dayStartAt(r: Rhythm): (at: number) => number {
  if (r.dayStarts.length === 1) {
    const hour = r.dayStarts[0]!.hour;
    return () => hour;
  }
  return (at) => dayStartHourAt(r, at);
}

/** The hour days start at now (what the settings show). */
export function currentDayStartHour(r: Rhythm): number {
  return r.dayStarts[r.dayStarts.length - 1]!.hour;
}

/**
 * The rhythm with days starting at `hour`, chosen at `now` (UTC offset `offsetMin`): it applies
 * from `switchAt` on, and events before keep the day they had. A change still pending replaces
 * the pending one.
 * @example withDayStartHour(r, 6, Date.parse('2026-05-04T12:00:00Z'), 0).dayStarts.at(-1) // { fromAt: Date.parse('2026-05-04T12:00:00Z'), hour: 6 }
 */
export function withDayStartHour(r: Rhythm, hour: number, now: number, offsetMin: number): Rhythm {
  if (!isHour(hour)) throw new RangeError(`A day starts at a whole hour from 0 to 23, not ${hour}.`);
  const kept = r.dayStarts.filter((d, i) => i === 0 || d.fromAt <= now);
  const inEffect = kept[kept.length - 1]!.hour;
  if (inEffect === hour) return kept.length === r.dayStarts.length ? r : { ...r, dayStarts: kept };
  const dayStarts = [...kept, { fromAt: switchAt(now, offsetMin, inEffect, hour), hour }];
  while (dayStarts.length > MAX_DAY_STARTS) dayStarts.splice(1, 1);
  return { ...r, dayStarts };
}

/** The rhythm with another goal. */
export function withGoal(r: Rhythm, goal: DailyGoal): Rhythm {
  if (!DAILY_GOALS.includes(goal))
    throw new RangeError(`Unknown daily goal "${goal}". Use one of: ${DAILY_GOALS.join(', ')}.`);
  return { ...r, goal, goalChosen: true };
}

/**
 * Whether the learner has picked a daily goal (home asks until then). A record from before the question existed
 * with a goal other than the default was picked too.
 */
export const goalWasChosen = (r: Pick<Rhythm, 'goal' | 'goalChosen'>): boolean =>
  r.goalChosen === true || r.goal !== 'streak-rule';

/** Today's progress toward the goal, from today's tally (src/lib/streak.ts `tallyOf`). */
export interface GoalProgress {
  done: boolean;
  /** One sentence, e.g. "3 of 10 answers today." */
  text: string;
}

/**
 * Where today stands against the goal.
 * @example goalProgress('answer-10', { answersToday: 3, readToday: false }).text // '3 of 10 questions answered today.'
 */
export function goalProgress(goal: DailyGoal, tally: DayTally): GoalProgress {
  if (goal === 'read-1')
    return tally.readToday
      ? { done: true, text: 'Goal met: you read a card today.' }
      : { done: false, text: 'Read a card to its end to meet today’s goal.' };
  const target = goal === 'answer-10' ? 10 : goal === 'answer-20' ? 20 : ANSWERS_PER_DAY;
  const done = tally.answersToday >= target || (goal === 'streak-rule' && tally.readToday);
  if (done)
    return { done, text: `Goal met: ${tally.answersToday} answered${tally.readToday ? ', a card read' : ''} today.` };
  return {
    done,
    text: `${tally.answersToday} of ${target} questions answered today${goal === 'streak-rule' ? ' (or read a card)' : ''}.`,
  };
}

/**
 * The milestone note to show at local day `today` for a streak of `current` days: the highest
 * milestone reached and not yet dismissed, shown only on the day it was first shown (null if none).
 * A learner whose streak is already past several milestones sees only the highest.
 */
export function milestoneToShow(r: Rhythm, current: number, today: number): number | null {
  const reached = MILESTONES.filter((m) => current >= m);
  const top = reached[reached.length - 1];
  if (top === undefined) return null;
  const note = r.milestones.find((m) => m.days === top);
  if (!note) return top;
  return !note.dismissed && note.shownDay === today ? top : null;
}

/**
 * The rhythm after showing milestone `days` on `today`: it and every lower milestone are noted,
 * so each is shown once.
 */
export function milestoneShown(r: Rhythm, days: number, today: number): Rhythm {
  const milestones = [...r.milestones];
  for (const m of MILESTONES)
    if (m <= days && !milestones.some((n) => n.days === m))
      milestones.push({ days: m, shownDay: today, dismissed: m < days });
  return { ...r, milestones };
}

/** The rhythm after the learner dismissed milestone `days`'s note. */
export function milestoneDismissed(r: Rhythm, days: number, today: number): Rhythm {
  const noted = milestoneShown(r, days, today);
  return { ...noted, milestones: noted.milestones.map((m) => (m.days === days ? { ...m, dismissed: true } : m)) };
}

/** What a milestone note says. */
export function milestoneText(days: number): string {
  if (days >= 100) return '100 days in a row. That is a habit: thank you for coming back.';
  if (days >= 30) return '30 days in a row. A month of steady practice.';
  return '7 days in a row: a week of practice.';
}

/** The local day (days since 1970-01-01) of `at` at UTC offset `offsetMin`, under the rhythm. */
export function rhythmDay(r: Rhythm, at: number, offsetMin: number): number {
  return dayNumber(at, offsetMin, dayStartHourAt(r, at));
}

/**
 * What the settings say about when a day starts, true for this learner now: a change still pending (the first
 * visit's move to 4:00, or a new choice) says until when the old hour holds, so practice at 1 a.m. on a first
 * visit is not promised to count for the evening before when it does not yet.
 * @example dayStartNote(migrateRhythm(Date.parse('2026-05-04T01:00:00'), offset), Date.parse('2026-05-04T01:00:00'), 'en-GB')
 * // 'Today your day started at midnight, as your days so far were counted; from 5:00 today on, a new day starts at 4:00, so practice after midnight counts for the evening before.'
 */
export function dayStartNote(r: Rhythm, now: number, locale?: string | null): string {
  const last = r.dayStarts[r.dayStarts.length - 1]!;
  const hourText = (h: number) => (h === 0 ? 'midnight' : hourOfDay(h, locale));
  const after = (h: number) => (h === 0 ? '' : ', so practice after midnight counts for the evening before');
  if (last.fromAt <= now) return `A new day starts at ${hourText(last.hour)}${after(last.hour)}.`;
  const before = dayStartHourAt(r, now);
  const at = clockTime(last.fromAt, locale);
  return `Today your day started at ${hourText(before)}, as your days so far were counted; from ${at} today on, a new day starts at ${hourText(last.hour)}${after(last.hour)}.`;
}
