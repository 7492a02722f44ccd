/**
 * Size budgets, measured in Chromium (sizes are deterministic, so they can be asserted; timings never are).
 * JavaScript = every JavaScript response the page fetched (modules, their imports, modulepreloads) plus
 * the page's inline scripts, each gzipped (zlib level 6, what `gzip` and most servers use). KB = 1024 bytes.
 *  - a card page: ≤ 35 KB before the quiz scrolls into view, ≤ 88 KB once it has hydrated (was 80, then 85 KB;
 *    React's client is 64.3 KB of it; the flush on pagehide, the tab-long fallback and the quiz reducer took it
 *    to 81.0 KB, then saving the quiz in progress (0.9 KB), card marks (1.4 KB) and the theme (0.6 KB) to
 *    ~85.7 KB on 2026-12-01; 86.6 KB counted once scripts stop arriving, with the write path that the scroll loads);
 *  - the home page: ≤ 100 KB;
 *  - the service worker's precache (sum of the files sw.js lists): < 7 MB (was 5 MB for 41 cards and 8
 *    curated quizzes; 62 cards, 442 questions, 12 curated and 7 role quizzes measured 6.81 MB, 324 files, on
 *    2026-12-01: ~1.7 MB of it the curated and role quiz pages' questions as island props, which bank.json also
 *    holds; the next step is for those pages to draw their questions from bank.json, as /practice/random/ does).
 * The service worker is blocked here: its scripts (sw.js, workbox-*.js) run off the page, and the
 * precache budget covers what it downloads.
 */
import { test, expect } from '@playwright/test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inlineScriptsGzip, KB, watchScripts } from './script-bytes.ts';

test('a card page loads ≤ 35 KB gzip of JavaScript before the quiz, ≤ 88 KB after it hydrates', async ({ page }) => {
  const scripts = watchScripts(page);
  await page.goto('/cards/gpu-util/');
  await scripts.settled();
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(1); // still waiting: not in view
  const inline = await inlineScriptsGzip(page);
  const before = scripts.total() + inline;
  test.info().annotations.push({
    type: 'card JS before quiz',
    description: `${(before / KB).toFixed(1)} KB (inline ${(inline / KB).toFixed(1)} KB; ${scripts.list()})`,
  });
  expect(before, scripts.list()).toBeLessThanOrEqual(35 * KB);
  expect(scripts.sizes.size).toBeGreaterThan(0); // the measurement sees the page's own scripts

  await page.locator('section.quiz').scrollIntoViewIfNeeded();
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(0);
  await scripts.settled();
  const after = scripts.total() + inline;
  test
    .info()
    .annotations.push({ type: 'card JS after quiz', description: `${(after / KB).toFixed(1)} KB (${scripts.list()})` });
  expect(after).toBeGreaterThan(before); // React and the quiz came in
  expect(after, scripts.list()).toBeLessThanOrEqual(88 * KB);
});

test('the home page loads ≤ 100 KB gzip of JavaScript', async ({ page }) => {
  const scripts = watchScripts(page);
  await page.goto('/');
  await scripts.settled();
  // Anything that waits for visibility comes in too.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await scripts.settled();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  const js = scripts.total() + (await inlineScriptsGzip(page));
  test.info().annotations.push({ type: 'home JS', description: `${(js / KB).toFixed(1)} KB (${scripts.list()})` });
  expect(js, scripts.list()).toBeLessThanOrEqual(100 * KB);
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
