/**
 * Synchronous views of a snapshot for pages: the streak (and the header badge's cached summary it
 * refreshes) and the stats page's numbers. Re-exported by progress.ts, the store's public API.
 */
import { computeStats as computeStatsFrom, type Stats, type StatsOptions } from '../lib/stats.ts';
import {
  computeStreak,
  FREEZE_EVERY_DAYS,
  localDay,
  MAX_FREEZES,
  MS_PER_DAY,
  type StreakSummary,
} from '../lib/streak.ts';
import type { AnswerEvent, ProgressEvent } from '../schemas/progress-event.ts';
import type { ProgressSnapshot } from './snapshot.ts';
import { deviceZoneName, writeStreakCache, type StreakCache } from './record.ts';

/**
 * The streak in a snapshot as of `now`, in the device's zone then (or `tz`). Sync. In a browser,
 * for a saved (persistent) log in the device's zone, it also refreshes the header badge's cached
 * summary (record.ts `StreakCache`), so pages that only write progress need no store for it.
 */
export function streakOf(s: ProgressSnapshot, now: number, tz: string = deviceZoneName(now)): StreakSummary {
  const events = streakEvents(s);
  const streak = computeStreak(events, now, tz);
  if (
    typeof window !== 'undefined' &&
    s.persistent &&
    tz === deviceZoneName(now) &&
    Math.abs(now - Date.now()) < 60_000
  ) {
    const today = localDay(now, tz);
    const todayEvents = events.filter(
      (e) => e.at > now - 2 * MS_PER_DAY && localDay(e.at, e.tz, e.offsetMin) === today,
    );
    writeStreakCache(streakCacheOf(streak, now, tz, todayEvents));
  }
  return streak;
}

/** The events streaks count: active answers, card reads and passed labs. */
export function streakEvents(s: ProgressSnapshot): ProgressEvent[] {
  return [...s.answers, ...s.events.filter((e) => e.type === 'card-read' || (e.type === 'lab-done' && e.passed))];
}

/** Stats-page numbers from a snapshot (uses its schedule: no refold). */
export function computeStats(
  snapshot: ProgressSnapshot,
  now: number,
  options: Omit<StatsOptions, 'schedule'> = {},
): Stats {
  return computeStatsFrom(snapshot.events, now, { ...options, schedule: snapshot.schedule });
}

/**
 * The cache entry for a streak computed by the full store. `todayEvents`: the streak events
 * (active answers and card reads) of today. A pending today becomes done with one more day on the
 * run (a broken run restarts at 1): see computeStreak in src/lib/streak.ts.
 */
function streakCacheOf(
  streak: Pick<StreakSummary, 'current' | 'todayDone' | 'freezesHeld'>,
  now: number,
  tz: string,
  todayEvents: readonly { type: string }[],
): StreakCache {
  let answersToday = 0;
  let readToday = false;
  for (const e of todayEvents) {
    if (e.type === 'answer') answersToday++;
    else if (e.type === 'card-read') readToday = true;
  }
  return {
    day: localDay(now, tz),
    tz,
    current: streak.current,
    todayDone: streak.todayDone,
    freezesHeld: streak.freezesHeld,
    currentIfTodayDone: streak.todayDone ? streak.current : streak.current + 1,
    freezesIfTodayDone:
      streak.todayDone || (streak.current + 1) % FREEZE_EVERY_DAYS !== 0
        ? streak.freezesHeld
        : Math.min(MAX_FREEZES, streak.freezesHeld + 1),
    answersToday,
    readToday,
  };
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
