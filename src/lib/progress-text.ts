/**
 * Words and numbers for the learner's progress: labels for the streak badge, the week strip and
 * the progress page. Pure (no DOM).
 */
import type { DayStatus } from './streak.ts';

import { plural } from './streak-label.ts';

export { streakLabel } from './streak-label.ts';

/** What a day of the week strip says to a screen reader. */
export const DAY_STATUS_TEXT: Record<DayStatus, string> = {
  active: 'done',
  frozen: 'missed, covered by a streak freeze',
  missed: 'not done',
  pending: 'not done yet',
};

/** Visible mark for each day status (so the strip does not rely on colour). */
export const DAY_STATUS_MARK: Record<DayStatus, string> = { active: '✓', frozen: '❄', missed: '·', pending: '' };

/** "Mon", "Tue"... for weekday 0 (Monday) to 6. */
export const WEEKDAY_SHORT = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

const WEEKDAY_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MONTH_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/**
 * "Monday 30 March" from "2026-03-30" (the date as written, no zone arithmetic). Spelled out by
 * hand: toLocaleDateString with options builds a formatter per call, and the progress page asks
 * ~180 times (one 4×-throttled phone CPU spent ~240 ms on it).
 */
export function longDay(iso: string): string {
  const d = new Date(`${iso}T12:00:00Z`);
  return `${WEEKDAY_LONG[d.getUTCDay()]} ${d.getUTCDate()} ${MONTH_LONG[d.getUTCMonth()]}`;
}

/** Bytes as "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** 0.734 → "73%"; null → "–". */
export function percent(x: number | null): string {
  return x === null ? '–' : `${Math.round(x * 100)}%`;
}

export { plural };
