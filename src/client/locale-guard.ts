/**
 * Import before any library that formats with `navigator.language` at load (uPlot builds
 * `new Intl.NumberFormat(navigator.language)` when its module loads). Where the browser reports a tag that
 * Intl rejects (WebKitGTK under a POSIX locale reports "C"), this shadows `navigator.language` with a
 * usable one, so the island starts instead of throwing `RangeError: invalid language tag`.
 */
import { usableLocale } from '../lib/locale.ts';

if (typeof navigator !== 'undefined' && usableLocale(navigator.language, '') === '')
  Object.defineProperty(navigator, 'language', { value: usableLocale(null), configurable: true });
