/**
 * Explorable figures and static diagrams, by size, measured in Chromium over a private copy of dist/ at 390×844
 * (service worker blocked; gzip = zlib level 6 per response; KB = 1024 bytes):
 *  - per figure: the JavaScript it loads on first use (when it nears the viewport: the shared hydration code, its
 *    own module and what that imports), and the card page's JavaScript before any figure or the quiz is visible
 *    (script files plus inline scripts), in the first card that places it (from the cards' `::figure` lines);
 *  - per diagram: the gzip size of its inline SVG (it costs no request and no script).
 * Budgets (asserted in test/e2e/figures.spec.ts): ≤ 8 KB per figure, ≤ 10 KB before a figure or the quiz is visible.
 *
 *   node bench/figures.ts             prints a Markdown table
 *   import { benchFigures } from './bench/figures.ts'
 */
import { chromium, type Page } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DIAGRAMS, diagramHtml } from '../src/lib/diagrams/registry.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { startSite } from '../test/e2e/site-server.ts';

const KB = 1024;
const gz = (b: Buffer | string) => gzipSync(b, { level: 6 }).length;

export interface FigureRow {
  figure: string;
  /** Card slugs that place it, in file order. */
  cards: string[];
  /** JavaScript the figure loads on first use, gzip, and the files. */
  ownGzip: number;
  files: string[];
  /** The measured card's JavaScript before any figure or the quiz is visible, gzip. */
  pageBeforeGzip: number;
  /** How many figures the measured card places. */
  figuresOnCard: number;
}

/** Every card that places a figure, from the `::figure{name="…"}` lines under content/cards. */
export function figurePlacements(root = 'content/cards'): Map<string, string[]> {
  const out = new Map<string, string[]>();
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
    }
  return out;
}

/** Records every JavaScript response's gzip size by URL; `settled()` waits for the bodies. */
function watchScripts(page: Page) {
  const sizes = new Map<string, number>();
  const pending: Promise<void>[] = [];
  page.on('response', (res) => {
    if (!/\.js(\?|$)/.test(res.url()) || sizes.has(res.url())) return;
    sizes.set(res.url(), 0);
    const body = res.body().catch(() => page.request.get(res.url()).then((r) => r.body()));
    pending.push(body.then((b) => void sizes.set(res.url(), gz(b))));
  });
  return {
    sizes,
    settled: async () => {
      await page.waitForLoadState('networkidle');
      await Promise.all(pending);
    },
  };
}

async function inlineScriptsGzip(page: Page): Promise<number> {
  const text = await page.evaluate(() =>
    [...document.querySelectorAll('script:not([src])')]
      .filter((el) => !el.getAttribute('type') || /module|javascript/.test(el.getAttribute('type')!))
      .map((el) => el.textContent ?? '')
      .join('\n'),
  );
  return text ? gz(text) : 0;
}

export async function benchFigures(): Promise<{ rows: FigureRow[]; markdown: string }> {
  const placements = figurePlacements();
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const rows: FigureRow[] = [];
  try {
    for (const [figure, cards] of placements) {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
      const page = await ctx.newPage();
      const { sizes, settled } = watchScripts(page);
      await page.goto(`${site.url}/cards/${cards[0]}/`);
      await settled();
      const pageBeforeGzip = [...sizes.values()].reduce((a, n) => a + n, 0) + (await inlineScriptsGzip(page));
      const before = new Set(sizes.keys());
      const fig = page.locator(`figure[data-figure="${figure}"]`).first();
      await fig.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.waitForSelector(`figure[data-figure="${figure}"][data-live]`, { state: 'attached' });
      await settled();
      const own = [...sizes].filter(([u]) => !before.has(u));
      rows.push({
        figure,
        cards,
        ownGzip: own.reduce((a, [, n]) => a + n, 0),
        files: own.map(([u, n]) => `${basename(new URL(u).pathname)} ${n} B`),
        pageBeforeGzip,
        figuresOnCard: await page.locator('figure[data-figure]').count(),
      });
      await ctx.close();
    }
  } finally {
    await browser.close();
    await site.dispose();
  }
  const k = (n: number) => (n / KB).toFixed(2);
  const markdown = [
    '| figure | card(s) | JS on first use (gzip) | files | card JS before a figure or the quiz is visible (gzip) |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${r.cards.map((c) => `\`${c}\``).join(', ')} | ${k(r.ownGzip)} KB | ${r.files.join(', ')} | ${k(r.pageBeforeGzip)} KB${r.figuresOnCard > 1 ? ` (${r.figuresOnCard} figures on \`${r.cards[0]}\`)` : ''} |`,
    ),
    '',
    '| diagram | inline SVG + caption (gzip) |',
    '|---|---|',
    ...Object.values(DIAGRAMS).map((d) => `| ${d.name} | ${k(gz(diagramHtml(d)))} KB |`),
  ].join('\n');
  return { rows, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown } = await benchFigures();
  console.log(markdown);
}
