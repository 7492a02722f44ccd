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
