/**
 * Bytes per page type, measured in Chromium over a private copy of dist/ (what a first visit
 * downloads; the service worker is blocked so its precache does not count here): HTML, CSS and
 * JavaScript, raw and gzip (zlib level 6 per response, KB = 1024 bytes), JavaScript at load and
 * after scrolling to the end (client:visible islands hydrated), everything else (JSON, fonts,
 * images, Pagefind). Plus the service worker's precache: the files sw.js lists, and its own scripts.
 *
 *   node bench/bytes.ts             prints a Markdown table
 *   import { benchBytes } from './bench/bytes.ts'
 */
import { chromium, type Page } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { startSite } from '../test/e2e/site-server.ts';
import { precacheBytes } from '../test/e2e/sw.ts';

const KB = 1024;
const gz = (b: Buffer) => gzipSync(b, { level: 6 }).length;

export interface BytesRow {
  page: string;
  path: string;
  html: [raw: number, gzip: number];
  css: [raw: number, gzip: number];
  /** JavaScript at load (before scrolling), gzip. */
  jsLoad: number;
  /** JavaScript after scrolling to the end, raw and gzip. */
  js: [raw: number, gzip: number];
  other: number;
  total: number;
  requests: number;
}

function firstPage(dist: string, dir: string, except: string[] = []): string | undefined {
  const root = join(dist, dir);
  if (!existsSync(root)) return undefined;
  const sub = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !except.includes(d.name) && existsSync(join(root, d.name, 'index.html')))
    .map((d) => d.name)
    .sort()[0];
  return sub ? `/${dir}/${sub}/` : undefined;
}

/** One URL per page type in this build. */
export function pageTypes(dist = 'dist'): { page: string; path: string }[] {
  const has = (p: string) => existsSync(join(dist, p, 'index.html'));
  const curated = firstPage(dist, 'practice', ['random']);
  const lab = firstPage(dist, 'labs');
  return [
    { page: 'home', path: '/' },
    { page: 'topics', path: '/topics/' },
    { page: 'topic', path: '/topics/meters/' },
    { page: 'card', path: '/cards/gpu-util/' },
    { page: 'practice hub', path: '/practice/' },
    { page: 'random practice', path: '/practice/random/?seed=bench' },
    ...(curated ? [{ page: 'curated quiz', path: curated }] : []),
    { page: 'glossary', path: '/glossary/' },
    { page: 'search', path: '/search/' },
    { page: 'about', path: '/about/' },
    ...(['saved', 'review', 'progress', 'labs'] as const)
      .filter(has)
      .map((p) => ({ page: p === 'progress' ? 'stats (progress)' : p, path: `/${p}/` })),
    ...(lab ? [{ page: 'lab', path: lab }] : []),
  ];
}

/** The files sw.js precaches (test/e2e/sw.ts weighs them) and the worker's own scripts, gzip. */
export function precacheSize(dist = 'dist'): { files: number; bytes: number; wire: number; workerGzip: number } {
  const { entries, raw, wire } = precacheBytes(dist);
  const workbox = readdirSync(dist).filter((f) => /^workbox-.*\.js$/.test(f));
  const workerGzip = [join(dist, 'sw.js'), ...workbox.map((f) => join(dist, f))].reduce(
    (n, f) => n + gz(readFileSync(f)),
    0,
  );
  return { files: entries, bytes: raw, wire, workerGzip };
}

async function measure(page: Page, url: string): Promise<Omit<BytesRow, 'page' | 'path'>> {
  const seen = new Map<string, { kind: 'html' | 'css' | 'js' | 'other'; raw: number; gzip: number; late: boolean }>();
  let late = false;
  const pending: Promise<void>[] = [];
  page.on('response', (res) => {
    pending.push(
      (async () => {
        if (seen.has(res.url()) || res.status() >= 300) return;
        const type = res.headers()['content-type'] ?? '';
        const kind =
          res.request().resourceType() === 'document'
            ? 'html'
            : /css/.test(type)
              ? 'css'
              : /javascript/.test(type)
                ? 'js'
                : 'other';
        try {
          const body = await res.body();
          seen.set(res.url(), { kind, raw: body.length, gzip: gz(body), late });
        } catch {
          /* no body (redirect, aborted) */
        }
      })(),
    );
  });
  await page.goto(url);
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  late = true;
  // Scroll to the end in steps so every client:visible island comes into view once.
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += innerHeight / 2) {
      window.scrollTo(0, y);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));
    }
  });
  await page.waitForLoadState('networkidle');
  await page
    .waitForFunction(() => !document.querySelector('astro-island[ssr]'), undefined, { timeout: 15_000 })
    .catch(() => {});
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  const all = [...seen.values()];
  const sum = (
    kind: string,
    f: (x: (typeof all)[number]) => number,
    pred: (x: (typeof all)[number]) => boolean = () => true,
  ) => all.filter((x) => x.kind === kind && pred(x)).reduce((n, x) => n + f(x), 0);
  // The page's inline scripts are part of its HTML: counted there.
  return {
    html: [sum('html', (x) => x.raw), sum('html', (x) => x.gzip)],
    css: [sum('css', (x) => x.raw), sum('css', (x) => x.gzip)],
    jsLoad: sum(
      'js',
      (x) => x.gzip,
      (x) => !x.late,
    ),
    js: [sum('js', (x) => x.raw), sum('js', (x) => x.gzip)],
    other: sum('other', (x) => x.gzip),
    total: all.reduce((n, x) => n + x.gzip, 0),
    requests: all.length,
  };
}

export async function benchBytes(): Promise<{
  rows: BytesRow[];
  precache: ReturnType<typeof precacheSize>;
  markdown: string;
}> {
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const rows: BytesRow[] = [];
  try {
    for (const p of pageTypes(site.dir)) {
      const context = await browser.newContext({
        serviceWorkers: 'block',
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      });
      const page = await context.newPage();
      rows.push({ ...p, ...(await measure(page, `${site.url}${p.path}`)) });
      await context.close();
    }
  } finally {
    await browser.close();
    await site.dispose();
  }
  const precache = precacheSize();
  const k = (n: number) => (n / KB).toFixed(1);
  const markdown = [
    '| page type | HTML raw / gzip | CSS raw / gzip | JS gzip at load | JS raw / gzip after scrolling to the end | other gzip | total gzip | requests |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.page} \`${r.path}\` | ${k(r.html[0])} / ${k(r.html[1])} KB | ${k(r.css[0])} / ${k(r.css[1])} KB | ${k(r.jsLoad)} KB | ${k(r.js[0])} / ${k(r.js[1])} KB | ${k(r.other)} KB | ${k(r.total)} KB | ${r.requests} |`,
    ),
    `| service worker precache | ${precache.files} files | | | | | ${(precache.bytes / KB / KB).toFixed(2)} MB raw, ${(precache.wire / KB / KB).toFixed(2)} MB as downloaded (gzip) | sw.js + workbox: ${k(precache.workerGzip)} KB gzip |`,
  ].join('\n');
  return { rows, precache, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown } = await benchBytes();
  console.log(markdown);
}
