/**
 * Explorable figures and static diagrams, by size, measured in Chromium over a private copy of dist/ at 390×844
 * (service worker blocked; gzip = zlib level 6 per response; KB = 1024 bytes):
 *  - per figure: the JavaScript it loads on first use (when it nears the viewport: the shared hydration code, its
 *    own module and what that imports), and the card page's JavaScript before any figure or the quiz is visible
 *    (script files plus inline scripts), in a card where it is the only figure when there is one (from the cards'
 *    `::figure` lines); and for a card with several figures, its JavaScript before any is visible and once all are;
 *  - per diagram: the gzip size of its inline SVG (it costs no request and no script).
 * Budgets (asserted in test/e2e/figures.spec.ts): ≤ 8 KB per figure, ≤ 10 KB before a figure or the quiz is visible.
 *
 *   node bench/figures.ts             prints a Markdown table
 *   import { benchFigures } from './bench/figures.ts'
 */
import { chromium } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIAGRAMS, diagramHtml } from '../src/lib/diagrams/registry.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { startSite } from '../test/e2e/site-server.ts';
import { gz, inlineScriptsGzip, KB, watchScripts } from '../test/e2e/script-bytes.ts';

export interface FigureRow {
  figure: string;
  /** Card slugs that place it, in file order. */
  cards: string[];
  /** The card it was measured in. */
  measuredIn: string;
  /** JavaScript the figure loads on first use, gzip, and the files. */
  ownGzip: number;
  files: string[];
  /** The measured card's JavaScript before any figure or the quiz is visible, gzip. */
  pageBeforeGzip: number;
}

/** Every card that places a figure (from the `::figure{name="…"}` lines under content/cards), and figures per card. */
export function figurePlacements(root = 'content/cards'): {
  byFigure: Map<string, string[]>;
  perCard: Map<string, number>;
} {
  const out = new Map<string, string[]>();
  const perCard = new Map<string, number>();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.md') ? [join(dir, d.name)] : [],
    );
  for (const file of walk(root).sort())
    for (const m of readFileSync(file, 'utf8').matchAll(/^::figure\{name=["“”]?([\w-]+)/gm)) {
      const cards = out.get(m[1]!) ?? [];
      const slug = basename(file, '.md');
      if (!cards.includes(slug)) cards.push(slug);
      out.set(m[1]!, cards);
      perCard.set(slug, (perCard.get(slug) ?? 0) + 1);
    }
  return { byFigure: out, perCard };
}

/** A card with several figures: its JavaScript before any is visible, and once every one has hydrated. */
export interface MultiRow {
  card: string;
  figures: number;
  beforeGzip: number;
  afterGzip: number;
  /** Whether the quiz came into view on the way and hydrated too (React and the quiz are then in `afterGzip`). */
  quizToo: boolean;
}

export async function benchFigures(): Promise<{ rows: FigureRow[]; multi: MultiRow[]; markdown: string }> {
  const { byFigure, perCard } = figurePlacements();
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const rows: FigureRow[] = [];
  const multi: MultiRow[] = [];
  try {
    for (const [figure, cards] of byFigure) {
      const measuredIn = [...cards].sort((a, b) => perCard.get(a)! - perCard.get(b)!)[0]!;
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
      const page = await ctx.newPage();
      const { sizes, settled } = watchScripts(page);
      await page.goto(`${site.url}/cards/${measuredIn}/`);
      await settled();
      const pageBeforeGzip = [...sizes.values()].reduce((a, n) => a + n, 0) + (await inlineScriptsGzip(page));
      // The learner's first touch loads the progress write path, which is not the figure's.
      await page.dispatchEvent('main', 'pointerdown');
      await settled();
      const before = new Set(sizes.keys());
      const fig = page.locator(`figure[data-figure="${figure}"]`).first();
      await fig.evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
      await page.waitForSelector(`figure[data-figure="${figure}"][data-live]`, { state: 'attached' });
      await settled();
      const own = [...sizes].filter(([u]) => !before.has(u));
      rows.push({
        figure,
        cards,
        measuredIn,
        ownGzip: own.reduce((a, [, n]) => a + n, 0),
        files: own.map(([u, n]) => `${basename(new URL(u).pathname)} ${n} B`),
        pageBeforeGzip,
      });
      await ctx.close();
    }
    for (const [card, figures] of perCard) {
      if (figures < 2) continue;
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
      const page = await ctx.newPage();
      const { sizes, settled } = watchScripts(page);
      await page.goto(`${site.url}/cards/${card}/`);
      await settled();
      const inline = await inlineScriptsGzip(page);
      const beforeGzip = [...sizes.values()].reduce((a, n) => a + n, 0) + inline;
      for (const fig of await page.locator('figure[data-figure]').all()) {
        await fig.evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
        await page.waitForFunction((el) => el?.hasAttribute('data-live'), await fig.elementHandle());
      }
      await settled();
      const quizToo = (await page.locator('#quiz astro-island:not([ssr])').count()) > 0;
      multi.push({
        card,
        figures,
        beforeGzip,
        afterGzip: [...sizes.values()].reduce((a, n) => a + n, 0) + inline,
        quizToo,
      });
      await ctx.close();
    }
  } finally {
    await browser.close();
    await site.dispose();
  }
  const k = (n: number) => (n / KB).toFixed(2);
  const markdown = [
    '| figure | card(s), the one measured in bold | JS on first use (gzip) | files | card JS before a figure or the quiz is visible (gzip) |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${r.cards.map((c) => (c === r.measuredIn ? `**\`${c}\`**` : `\`${c}\``)).join(', ')} | ${k(r.ownGzip)} KB | ${r.files.join(', ')} | ${k(r.pageBeforeGzip)} KB |`,
    ),
    '',
    '| card with several figures | figures | JS before any is visible (gzip) | JS once all have hydrated (gzip) | the quiz came into view and hydrated too |',
    '|---|---|---|---|---|',
    ...multi.map(
      (m) =>
        `| \`${m.card}\` | ${m.figures} | ${k(m.beforeGzip)} KB | ${k(m.afterGzip)} KB | ${m.quizToo ? 'yes (React and the quiz are in it)' : 'no'} |`,
    ),
    '',
    '| diagram | inline SVG + caption (gzip) |',
    '|---|---|',
    ...Object.values(DIAGRAMS).map((d) => `| ${d.name} | ${k(gz(diagramHtml(d)))} KB |`),
  ].join('\n');
  return { rows, multi, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown } = await benchFigures();
  console.log(markdown);
}
