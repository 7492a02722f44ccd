/**
 * A locale tag that `Intl` accepts: `tag` itself when it is valid, else `fallback`. Browsers can report
 * tags Intl rejects: WebKitGTK under a POSIX locale gives `navigator.language === 'C'`, and
 * `new Intl.NumberFormat('C')` throws `RangeError: invalid language tag`.
 *
 * @example usableLocale('C') // "en-US"
 * @example usableLocale('de-DE') // "de-DE"
 */
export function usableLocale(tag: string | undefined | null, fallback = 'en-US'): string {
  if (!tag) return fallback;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * A clock time as the locale writes it by default (its short time style): 12 or 24 hours, with or without a
 * leading zero, as the learner's device is set. `timeZone` defaults to the device's.
 *
 * @example clockTime(Date.parse('2026-03-28T01:08:00Z'), 'en-US', 'UTC') // "1:08 AM"
 * @example clockTime(Date.parse('2026-03-28T13:08:00Z'), 'de-DE', 'UTC') // "13:08"
 */
export function clockTime(ms: number, locale?: string | null, timeZone?: string): string {
  return new Intl.DateTimeFormat(usableLocale(locale), { timeStyle: 'short', timeZone }).format(ms);
}

/**
 * An hour of the day (0–23) on the hour, as the locale writes a clock time: "4:00 AM", "04:00".
 * @example hourOfDay(16, 'en-GB') // "16:00"
 */
export function hourOfDay(hour: number, locale?: string | null): string {
  return clockTime(Date.UTC(2000, 0, 1, hour), locale, 'UTC');
}
