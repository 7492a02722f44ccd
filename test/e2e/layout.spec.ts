import { test, expect } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { builtCardPaths, chunks } from './deck.ts';

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

// Eight cards a test: the sweep of the deck as short tests, none holding dozens of navigations.
for (const [i, group] of chunks(builtCardPaths('dist'), 8).entries())
  test(`cards open with their sections and quiz (group ${i + 1}: ${group[0]} …)`, async ({ page }) => {
    for (const href of group) {
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
