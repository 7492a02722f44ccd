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

/** A result as the search page has it from Pagefind: a card or glossary page, or a question (it names its card). */
export interface SearchResult {
  url: string;
  meta: { title?: string; card?: string };
  excerpt: string;
}

/**
 * A name as a query is compared with it: lower case, words only, no leading "the".
 * @example nameKey('The data-loader bottleneck') // 'data loader bottleneck'
 */
export function nameKey(name: string): string {
  const words = name.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return (words[0] === 'the' ? words.slice(1) : words).join(' ');
}

/**
 * The names a card goes by: its title, its short name (the title before the colon) and its slug.
 * @example cardNames('MFU: how much of the math counts', 'mfu') // ['mfu how much of the math counts', 'mfu']
 */
export function cardNames(title: string, slug: string): string[] {
  const short = title.split(':')[0]!;
  return [...new Set([nameKey(title), nameKey(short), nameKey(slug)])].filter(Boolean);
}

/** The slug of a card page's URL, with or without a base path; null for a question (`#quiz`) or another page. */
const cardSlugOf = (url: string): string | null => /\/cards\/([^/#?]+)\/?$/.exec(url)?.[1] ?? null;

/**
 * Whether `query` is one of the card's names, in any case; a query of several words also names a card
 * whose short name is their initials ("model flops utilization" names "MFU").
 * @example namesCard('mfu', 'MFU: how much of the math counts', 'mfu') // true
 */
export function namesCard(query: string, title: string, slug: string): boolean {
  const q = nameKey(query);
  if (!q) return false;
  const names = cardNames(title, slug);
  if (names.includes(q)) return true;
  const words = q.split(' ');
  const short = title.split(':')[0]!.trim();
  return words.length > 1 && /^[A-Z0-9]{2,}$/.test(short) && words.map((w) => w[0]).join('') === short.toLowerCase();
}

/** 0: the card the query names; 1: another card or page; 2: a question. */
export function resultRank(query: string, r: SearchResult): 0 | 1 | 2 {
  const slug = cardSlugOf(r.url);
  if (slug === null) return r.meta.card !== undefined || r.url.includes('#') ? 2 : 1;
  return namesCard(query, r.meta.title ?? '', slug) ? 0 : 1;
}

/**
 * Results in the order the page lists them: a card named by the query first, then the other cards and
 * pages, then questions; Pagefind's order within each.
 */
export function rankResults<T extends SearchResult>(query: string, results: readonly T[]): T[] {
  return results
    .map((r, i) => ({ r, i, rank: resultRank(query, r) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.r);
}
