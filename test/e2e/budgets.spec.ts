/**
 * Size budgets, measured in Chromium (sizes are deterministic, so they can be asserted; timings never are).
 * JavaScript = every JavaScript response the page fetched (modules, their imports, modulepreloads) plus
 * the page's inline scripts, each gzipped (zlib level 6, what `gzip` and most servers use). KB = 1024 bytes.
 *  - a card page: ≤ 35 KB before the quiz scrolls into view, ≤ 88 KB once it has hydrated (was 80, then 85 KB;
 *    React's client is 64.3 KB of it; the flush on pagehide, the tab-long fallback and the quiz reducer took it
 *    to 81.0 KB, then saving the quiz in progress (0.9 KB), card marks (1.4 KB) and the theme (0.6 KB) to
 *    ~85.7 KB on 2026-12-01);
 *  - the home page: ≤ 100 KB;
 *  - the service worker's precache (sum of the files sw.js lists): < 7 MB (was 5 MB for 41 cards and 8
 *    curated quizzes; 62 cards, 442 questions and 12 quizzes measured 5.76 MB on 2026-12-01, ~1.1 MB of it the
 *    curated quiz pages' inline questions, which bank.json also holds).
 * The service worker is blocked here: its scripts (sw.js, workbox-*.js) run off the page, and the
 * precache budget covers what it downloads.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const KB = 1024;
const gz = (b: Buffer | string) => gzipSync(b, { level: 6 }).length;

test.use({ serviceWorkers: 'block', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

/** Records the gzip size of every JavaScript response, by URL. */
function watchScripts(page: Page): Map<string, number> {
  const seen = new Map<string, number>();
  page.on('response', async (res) => {
    const type = res.headers()['content-type'] ?? '';
    if (!/javascript/.test(type) && !/\.m?js(\?|$)/.test(res.url())) return;
    if (seen.has(res.url())) return;
    seen.set(res.url(), 0);
    try {
      seen.set(res.url(), gz(await res.body()));
    } catch {
      /* body gone (navigation): counted as 0, and the test reads after settling */
    }
  });
  return seen;
}

async function inlineScripts(page: Page): Promise<number> {
  const text = await page.evaluate(() =>
    [...document.querySelectorAll('script:not([src])')]
      .filter((s) => !s.getAttribute('type') || /module|javascript/.test(s.getAttribute('type')!))
      .map((s) => s.textContent ?? '')
      .join('\n'),
  );
  return text ? gz(text) : 0;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const list = (m: Map<string, number>) =>
  [...m].map(([u, n]) => `${new URL(u).pathname} ${(n / KB).toFixed(1)} KB`).join(', ');

test('a card page loads ≤ 35 KB gzip of JavaScript before the quiz, ≤ 88 KB after it hydrates', async ({ page }) => {
  const scripts = watchScripts(page);
  await page.goto('/cards/gpu-util/');
  await page.waitForLoadState('networkidle');
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(1); // still waiting: not in view
  const inline = await inlineScripts(page);
  const before = total(scripts) + inline;
  test.info().annotations.push({
    type: 'card JS before quiz',
    description: `${(before / KB).toFixed(1)} KB (inline ${(inline / KB).toFixed(1)} KB; ${list(scripts)})`,
  });
  expect(before, list(scripts)).toBeLessThanOrEqual(35 * KB);
  expect(scripts.size).toBeGreaterThan(0); // the measurement sees the page's own scripts

  await page.locator('section.quiz').scrollIntoViewIfNeeded();
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
  const after = total(scripts) + inline;
  test
    .info()
    .annotations.push({ type: 'card JS after quiz', description: `${(after / KB).toFixed(1)} KB (${list(scripts)})` });
  expect(after).toBeGreaterThan(before); // React and the quiz came in
  expect(after, list(scripts)).toBeLessThanOrEqual(88 * KB);
});

test('the home page loads ≤ 100 KB gzip of JavaScript', async ({ page }) => {
  const scripts = watchScripts(page);
  await page.goto('/');
  await page.waitForLoadState('networkidle');
  // Anything that waits for visibility comes in too.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForLoadState('networkidle');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  const js = total(scripts) + (await inlineScripts(page));
  test.info().annotations.push({ type: 'home JS', description: `${(js / KB).toFixed(1)} KB (${list(scripts)})` });
  expect(js, list(scripts)).toBeLessThanOrEqual(100 * KB);
});

test('the service worker precache stays under 7 MB', () => {
  const sw = readFileSync('dist/sw.js', 'utf8');
  const urls = [...sw.matchAll(/\{url:"([^"]+)",revision:/g)].map((m) => m[1]!);
  expect(urls.length).toBeGreaterThan(50); // every page is precached
  const bytes = urls.reduce((sum, u) => {
    const base = join('dist', decodeURIComponent(u));
    // Directory-style entries ("404", "topics/") name the page's index.html.
    for (const f of [base, `${base}.html`, join(base, 'index.html')]) {
      try {
        const st = statSync(f);
        if (st.isFile()) return sum + st.size;
      } catch {
        /* next candidate */
      }
    }
    throw new Error(`precache entry ${u} is not in dist/`);
  }, 0);
  test.info().annotations.push({
    type: 'precache',
    description: `${urls.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MB`,
  });
  expect(bytes).toBeLessThan(7 * 1024 * 1024);
});
