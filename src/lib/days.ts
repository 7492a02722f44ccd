/**
 * The streak's constants and day numbers from a known UTC offset: the small part of streak.ts
 * that the light write path (src/store/append.ts, record.ts) needs, kept apart so that pages
 * that only write progress load neither the streak computation nor the zone rules (Intl).
 * streak.ts re-exports all of it.
 */

export const MS_PER_DAY = 86_400_000;
/** Answers in one local day that make it count. */
export const ANSWERS_PER_DAY = 5;
/** Active days in a run that earn one freeze. */
export const FREEZE_EVERY_DAYS = 7;
export const MAX_FREEZES = 2;

/** The local date of an instant at UTC offset `offsetMin` (minutes, east positive), as days since 1970-01-01. */
export function dayNumber(at: number, offsetMin: number): number {
  return Math.floor((at + offsetMin * 60_000) / MS_PER_DAY);
}
