/**
 * Pagefind matches the last word of a query as a prefix and falls back to ever shorter prefixes, so a
 * word that is nowhere in the site ("xyzzy") still returns pages that merely contain an "x" in a code block.
 * A result counts only when one of its highlighted words shares at least `minShared` leading letters with a
 * word of the query (3, or the whole word when shorter): "thrott" finds "throttling", "xyzzy" finds nothing.
 *
 * @example isRealMatch('xyzzy', 'run <mark>x</mark> = 1') // false
 * @example isRealMatch('thrott', 'clock <mark>throttling</mark> reasons') // true
 */
export function isRealMatch(query: string, excerptHtml: string, minShared = 3): boolean {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (!words.length) return false;
  const marked = [...excerptHtml.matchAll(/<mark>([^<]*)<\/mark>/g)].map((m) => m[1]!.toLowerCase());
  return marked.some((m) =>
    words.some((w) => {
      const need = Math.min(minShared, w.length);
      let shared = 0;
      while (shared < m.length && shared < w.length && m[shared] === w[shared]) shared++;
      return shared >= need;
    }),
  );
}
