/**
 * Synchronous views of a snapshot for pages: the streak, the header badge's summary of it, and the stats
 * page's numbers. Re-exported by progress.ts, the store's public API. Nothing here writes.
 */
import { computeStats as computeStatsFrom, type Stats, type StatsOptions } from '../lib/stats.ts';
import {
  computeStreak,
  countsDayAlone,
  localDay,
  streakToday,
  tallyOf,
  type DayStartAt,
  type StreakSummary,
} from '../lib/streak.ts';
import { dayStartAt, goalProgress, type DailyGoal, type GoalProgress } from '../lib/rhythm.ts';
import { loadRhythm } from './rhythm.ts';
import type { AnswerEvent, ProgressEvent } from '../schemas/progress-event.ts';
import type { ProgressSnapshot } from './snapshot.ts';
import { deviceZoneName, type StreakCache } from './page-signals.ts';

/** When each day starts: the learner's rhythm on this device (rhythm.ts). */
export const deviceDayStart = (now: number): DayStartAt => dayStartAt(loadRhythm(now));

/**
 * The streak in a snapshot as of `now`, in the device's zone then (or `tz`), with days starting as
 * the learner chose (or `startAt`). Sync; writes nothing to the log.
 */
export function streakOf(
  s: ProgressSnapshot,
  now: number,
  tz: string = deviceZoneName(now),
  startAt: DayStartAt = deviceDayStart(now),
): StreakSummary {
  return computeStreak(streakEvents(s), now, tz, startAt);
}

/**
 * The header badge's summary of `streak` (computed from `s` as of `now` in `tz`) for today, to cache
 * (page-signals.ts `StreakCache`, written with `writeStreakCache`) so that pages that only write progress show the
 * badge without the store. Writes nothing.
 */
export function streakCacheOf(
  s: ProgressSnapshot,
  streak: StreakSummary,
  now: number,
  tz: string = deviceZoneName(now),
  startAt: DayStartAt = deviceDayStart(now),
): StreakCache {
  const startHour = startAt(now);
  const day = localDay(now, tz, undefined, startHour);
  return {
    ...streakToday(streak, tallyOf(streakEvents(s), day, now, startAt), day, tz, startHour),
    weekBefore: streak.week.slice(0, -1).map((d) => d.status),
  };
}

/**
 * Today's progress toward the daily `goal` (src/lib/rhythm.ts `goalProgress`) from the snapshot as of `now`: what
 * home's goal box and the progress page's rhythm panel both show. Writes nothing.
 * @example goalToday(snapshot, 'answer-10', Date.now()).text // '3 of 10 questions answered today.'
 */
export function goalToday(
  s: ProgressSnapshot,
  goal: DailyGoal,
  now: number,
  tz: string = deviceZoneName(now),
  startAt: DayStartAt = deviceDayStart(now),
): GoalProgress {
  return goalProgress(goal, streakCacheOf(s, streakOf(s, now, tz, startAt), now, tz, startAt));
}

/** The events streaks count: active answers, and card reads and labs (src/lib/streak-rules.ts `countsDayAlone`). */
export function streakEvents(s: ProgressSnapshot): ProgressEvent[] {
  return [...s.answers, ...s.events.filter(countsDayAlone)];
}

/** Stats-page numbers from a snapshot (uses its schedule: no refold). */
export function computeStats(
  snapshot: ProgressSnapshot,
  now: number,
  options: Omit<StatsOptions, 'schedule'> = {},
): Stats {
  return computeStatsFrom(snapshot.events, now, {
    startAt: deviceDayStart(now),
    ...options,
    schedule: snapshot.schedule,
  });
}

/** Helper for tests and the store: is this answer the newest one that still counts? */
export function lastActiveAnswer(events: readonly ProgressEvent[]): AnswerEvent | null {
  const undone = new Set<string>();
  for (const e of events) if (e.type === 'undo') undone.add(e.targetId);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'answer' && !undone.has(e.id)) return e;
  }
  return null;
}
