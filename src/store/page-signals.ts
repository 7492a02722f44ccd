/**
 * What the progress store tells a page outside the store, for pages that never load it: the
 * header badge's cached streak (localStorage) and the event that says a record was not stored.
 * Also the device's zone and day, which both need. Kept apart from record.ts (building records),
 * so a page that has not yet written anything loads none of that (src/client/progress-boot.ts).
 */
import { dayNumber, EMPTY_DAY, NO_STREAK, streakToday, type StreakToday } from '../lib/streak-rules.ts';

/** The device's IANA zone, or "UTC±hh:mm" when Intl does not say. */
export function deviceZoneName(at = Date.now()): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (tz && /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(tz)) return tz;
  const off = -new Date(at).getTimezoneOffset();
  const abs = Math.abs(off);
  return `UTC${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * The header badge's cached streak (localStorage), so pages that only write progress show it
 * without loading the store. Written by the header badge whenever it computes the streak from the
 * full store (src/client/progress-boot.ts `watchStreak`, with progress.ts `streakCacheOf`); updated
 * by the write path when today starts to count. Its fields: src/lib/streak-rules.ts `StreakToday`.
 */
export type StreakCache = StreakToday;

export const STREAK_CACHE_KEY = 'saturate:streak';

/** Today's local day number on this device (its zone's offset now), for days starting at `startHour`. */
export const deviceDay = (now: number, startHour = 0) => dayNumber(now, -new Date(now).getTimezoneOffset(), startHour);
/** Dispatched on window when this tab changes the cache (other tabs get a `storage` event). */
export const STREAK_CACHE_EVENT = 'saturate:streak-cache';

/** The cached summary if it is for today (device zone); null otherwise or when storage is blocked. */
export function readStreakCache(now = Date.now()): StreakCache | null {
  try {
    const raw = localStorage.getItem(STREAK_CACHE_KEY);
    if (!raw) return null;
    const c = JSON.parse(raw) as StreakCache;
    if (
      typeof c !== 'object' ||
      !c ||
      c.tz !== deviceZoneName(now) ||
      (c.startHour !== undefined && !(Number.isInteger(c.startHour) && c.startHour >= 0 && c.startHour <= 23)) ||
      c.day !== deviceDay(now, c.startHour ?? 0) ||
      typeof c.current !== 'number'
    )
      return null;
    return c;
  } catch {
    return null;
  }
}

export function writeStreakCache(c: StreakCache): void {
  try {
    const text = JSON.stringify(c);
    if (localStorage.getItem(STREAK_CACHE_KEY) === text) return;
    localStorage.setItem(STREAK_CACHE_KEY, text);
    window.dispatchEvent(new CustomEvent(STREAK_CACHE_EVENT));
  } catch {
    /* storage blocked: the badge falls back to the store */
  }
}

/** The zero streak for an empty log, cached for today (the header badge). */
export function cacheEmptyStreak(now = Date.now()): void {
  writeStreakCache(streakToday(NO_STREAK, EMPTY_DAY, deviceDay(now), deviceZoneName(now)));
}

/** Dispatched on window when something the learner did could not be recorded; detail: `{ message }`. */
export const PROGRESS_ERROR_EVENT = 'saturate:progress-error';

/**
 * Tells the page that a record was not stored (the "not saved" note shows it: src/client/progress-boot.ts),
 * so a failed write is never silent. Also logs it for whoever debugs the emitter.
 */
export function reportProgressError(err: unknown): void {
  console.warn(err);
  if (typeof window === 'undefined' || typeof CustomEvent === 'undefined') return;
  const message = err instanceof Error ? err.message : String(err);
  window.dispatchEvent(new CustomEvent(PROGRESS_ERROR_EVENT, { detail: { message } }));
}
