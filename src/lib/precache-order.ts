/**
 * What the service worker precaches, and in what order: each file once, the app shell and the pages a learner
 * opens first ahead of the rest. The worker (src/sw/sw.ts) fetches its precache in the order it is listed, six
 * requests at a time, so on a slow phone the home page, the topic list, the first cards and the question bank are stored
 * before the tail of the deck and the search index.
 *
 * Pages are listed by their file (`cards/gpu-util/index.html`); the worker answers `/cards/gpu-util/` and
 * `/cards/gpu-util` from that one entry (src/sw/sw.ts), so no page is downloaded twice.
 */

/** A precache entry as workbox-build lists it. */
export interface PrecacheEntry {
  url: string;
  revision: string | null;
  size: number;
}

/**
 * Lower ranks install first: the shell (styles, scripts, icons, manifest), then home, offline and topic pages,
 * the question bank, cards in deck order (`cardOrder`: card ids), quizzes and the rest, the search index last.
 * @example precacheRank('cards/mfu/index.html', ['gpu-util', 'mfu']) // 3.001
 */
export function precacheRank(url: string, cardOrder: readonly string[]): number {
  const path = url.replace(/^\//, '');
  if (/^_astro\/.+\.(css|js)$/.test(path) || /\.(png|svg|ico|webmanifest)$/.test(path)) return 0;
  if (/^(index|offline\/index|404)\.html$/.test(path) || path === '404') return 1;
  if (path.startsWith('topics/')) return 1.5;
  if (path === 'bank.json') return 2;
  const card = /^cards\/([^/]+)\/index\.html$/.exec(path);
  if (card) {
    const i = cardOrder.indexOf(card[1]!);
    return 3 + (i < 0 ? cardOrder.length : i) / 1000;
  }
  if (path.startsWith('pagefind/')) return 6;
  if (path.endsWith('.html')) return 4;
  return 5;
}

/** Drops repeated URLs and orders the rest by `precacheRank` (stable within a rank). */
export function orderPrecache<E extends PrecacheEntry>(entries: readonly E[], cardOrder: readonly string[]): E[] {
  const seen = new Set<string>();
  return entries
    .filter((e) => !seen.has(e.url) && seen.add(e.url))
    .map((e, i) => ({ e, i, rank: precacheRank(e.url, cardOrder) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ e }) => e);
}
