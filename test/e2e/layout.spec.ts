import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCardPaths } from './deck.ts';
import { CARD_SECTIONS } from '../../src/schemas/card.ts';

const PAGES = [
  '/',
  '/topics/',
  '/topics/meters/',
  '/cards/gpu-util/',
  '/practice/random/?seed=layout',
  '/practice/',
  '/glossary/',
  '/about/',
  '/does-not-exist/',
];

test.describe('phone layout', () => {
  test.use({ viewport: { width: 320, height: 640 } });
  for (const path of PAGES) {
    test(`no horizontal scroll at 320 px: ${path}`, async ({ page }) => {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll).toBeLessThanOrEqual(client);
    });
  }
});

test('the topic list links every card the build made', async ({ page }) => {
  await page.goto('/topics/');
  const links = await page
    .locator('.card-list a[data-card]')
    .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href')!));
  const built = readdirSync(join('dist', 'cards'), { withFileTypes: true }).filter((d) => d.isDirectory());
  expect(built.length).toBeGreaterThan(0);
  expect([...new Set(links)].sort()).toEqual(built.map((d) => `/cards/${d.name}/`).sort());
});

// Every card the build made has its sections and its quiz: read from the built pages, since a browser adds nothing to
// "is it in the HTML" (the quiz is server-rendered). Rendering is checked on the cards the other tests open.
test('every built card page has its sections and one quiz, server-rendered', () => {
  const missing: string[] = [];
  const paths = builtCardPaths('dist');
  expect(paths.length).toBeGreaterThan(50);
  for (const href of paths) {
    const html = readFileSync(join('dist', href, 'index.html'), 'utf8');
    const h2s = [...html.matchAll(/<h2[^>]*>(.*?)<\/h2>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
    for (const section of [...CARD_SECTIONS, 'Sources'])
      if (!h2s.includes(section)) missing.push(`${href}: no "${section}" (has: ${h2s.join(' | ')})`);
    const quizzes = html.match(/<section[^>]*class="[^"]*\bquiz\b/g)?.length ?? 0;
    if (quizzes !== 1) missing.push(`${href}: ${quizzes} quiz sections`);
  }
  expect(missing).toEqual([]);
});

test('a card opens in the browser with its sections and quiz, with and without its trailing slash', async ({
  page,
}) => {
  for (const href of ['/cards/gpu-util/', '/cards/mfu']) {
    await page.goto(href);
    await expect(page.getByRole('heading', { level: 2, name: 'One canonical example' })).toBeVisible();
    await expect(page.locator('section.quiz')).toHaveCount(1);
  }
});

test('a card page loads no React until the quiz scrolls into view', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/cards/gpu-util/');
  await page.waitForLoadState('networkidle');
  expect(scripts.some((s) => /client\.|react/.test(s))).toBe(false);
  await page.locator('section.quiz').scrollIntoViewIfNeeded();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  expect(scripts.some((s) => /client\./.test(s))).toBe(true);
});
