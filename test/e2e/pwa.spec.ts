import { test, expect, chromium, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, chromiumPath } from './browser.ts';
import { startSite } from './site-server.ts';
import { answerSeries, openCardQuiz, savedQuizzes, type BankQuestion } from './progress-helpers.ts';
import { builtCardPaths, spreadOver } from './deck.ts';
import {
  deployNewWorker,
  installOffline,
  INSTALL_MS,
  pagesNotPrecached,
  precacheUrls,
  waitForUpdateInstalled,
} from './sw.ts';

test.describe('offline, after one online visit', () => {
  // One install for the describe block (a browser context offline after one visit), as a learner has one phone.
  let context: BrowserContext;
  let page: Page;
  test.beforeAll(async ({ browser, baseURL }) => {
    test.setTimeout(INSTALL_MS);
    context = await browser.newContext({ baseURL: baseURL! });
    page = await context.newPage();
    await installOffline(page);
    await context.setOffline(true);
  });
  test.afterAll(async () => {
    await context?.close();
  });

  // Five cards spread over the deck (its first, last and three between), each with and without its trailing slash.
  // The worker answers every page by one rule, and the test below checks every page is in its precache.
  const deck = builtCardPaths('dist');
  const spread = spreadOver(deck);
  test(`cards across the deck open offline with and without the trailing slash (${spread.length} of ${deck.length})`, async () => {
    for (const url of spread)
      for (const variant of [url, url.replace(/\/$/, '')]) {
        await page.goto(variant);
        await expect(page.getByRole('heading', { level: 2, name: 'One canonical example' })).toBeVisible();
      }
  });

  test('every hub page and a practice quiz open offline', async () => {
    for (const url of [
      '/',
      '/topics/',
      '/practice/',
      '/practice/random/?seed=offline',
      '/glossary/',
      '/search/',
      '/about/',
    ]) {
      await page.goto(url);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    }
    // The practice quiz loads its bank from the cache.
    await page.goto('/practice/random/?seed=offline');
    await expect(page.locator('section.quiz .quiz-progress')).toHaveText(/Question 1 of \d+/);
    await expect(page.getByText(/You're offline/).first()).toBeVisible();
    // A curated quiz and a role quiz take their questions from the cached bank too.
    for (const url of ['/practice/fleet-operations/', '/roles/ml-engineer/quiz/']) {
      await page.goto(url);
      await expect(page.locator('section.quiz .quiz-progress')).toHaveText(/Question 1 of 30/);
    }
  });

  test('an unknown URL offline gets the offline page, not the browser error', async () => {
    await page.goto('/cards/not-downloaded-yet/');
    await expect(page.getByRole('heading', { level: 1, name: "You're offline" })).toBeVisible();
  });

  test('a quiz answered offline survives a reload', async () => {
    const quiz = await openCardQuiz(page, 'gpu-util');
    await quiz.locator('[data-option]').first().click();
    await expect(quiz.locator('.feedback h3')).toBeVisible();
    await page.reload();
    await page.locator('section.quiz').scrollIntoViewIfNeeded();
    await expect(page.locator('section.quiz .feedback h3')).toBeVisible();
  });

  test('search works offline', async () => {
    await page.goto('/search/');
    await page.getByRole('searchbox').fill('kernel');
    await expect(page.locator('[data-search-results] li').first()).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: /results? for/ })).toBeVisible();
  });
});

test('every page the build made is in the offline precache, as its index.html', () => {
  const { pages, missing } = pagesNotPrecached('dist');
  expect(pages).toBeGreaterThan(100);
  expect(missing).toEqual([]);
  const precached = new Set(precacheUrls(readFileSync('dist/sw.js', 'utf8')).map((u) => decodeURIComponent(u)));
  for (const card of builtCardPaths('dist')) expect(precached).toContain(`${card.slice(1)}index.html`);
});

test('a new deploy shows "New cards available" once its worker is installed; Reload keeps the quiz in progress', async ({
  page,
}) => {
  test.setTimeout(INSTALL_MS);
  const site = await startSite();
  try {
    await installOffline(page, `${site.url}/`);
    // A learner mid-quiz: two answers of a curated quiz.
    await page.goto(`${site.url}/practice/fleet-operations/`);
    const quiz = page.locator('section.quiz');
    const bank = (await (await page.request.get(`${site.url}/bank.json`)).json()) as BankQuestion[];
    const answered = await answerSeries(quiz, bank, [true, false]);
    await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 3 of 30/);
    // The save lands a moment after the screen moves on: wait for it as the reload will read it.
    await expect.poll(() => savedQuizzes(page)).toEqual([{ quizId: 'quiz:fleet-operations', index: 2 }]);
    await expect(page.locator('[data-update]')).toBeHidden();

    deployNewWorker(site.dir);
    await waitForUpdateInstalled(page);
    // The banner follows the worker's "installed" at once: within a few seconds, on a loaded machine too.
    const banner = page.locator('[data-update]');
    await expect(banner).toBeVisible({ timeout: 5_000 });
    await expect(banner).toContainText('New cards available');
    await Promise.all([page.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
    await expect(page.locator('[data-update]')).toBeHidden();
    expect(await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.waiting)).toBe(false);
    // The new worker controls the page, and the quiz is where the learner left it, both answers kept.
    await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 3 of 30/);
    expect(answered).toHaveLength(2);
    await expect.poll(() => savedQuizzes(page)).toEqual([{ quizId: 'quiz:fleet-operations', index: 2 }]);
  } finally {
    await site.dispose();
  }
});

test('an update already installing when the page opens is still offered', async ({ page, context }) => {
  test.setTimeout(INSTALL_MS);
  const site = await startSite();
  try {
    await installOffline(page, `${site.url}/`);
    deployNewWorker(site.dir);
    // The navigation itself finds the new worker (the browser checks sw.js on every navigation), before the page's
    // script listens for it.
    const second = await context.newPage();
    await second.goto(`${site.url}/topics/`);
    await waitForUpdateInstalled(second);
    await expect(second.locator('[data-update]')).toBeVisible({ timeout: 5_000 });
  } finally {
    await site.dispose();
  }
});

test('Chrome finds the app installable (persistent profile)', async ({ baseURL }) => {
  test.setTimeout(INSTALL_MS);
  const dir = mkdtempSync(join(tmpdir(), 'saturate-profile-'));
  const executablePath = chromiumPath();
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(dir, {
      ...(executablePath ? { executablePath } : {}),
      args: CHROMIUM_ARGS,
      baseURL: baseURL!,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await installOffline(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors.map((e) => e.errorId)).toEqual([]);
    const manifest = await page.evaluate(async () => (await fetch('/manifest.webmanifest')).json());
    expect(manifest).toMatchObject({ id: '/', start_url: '/', scope: '/', display: 'standalone' });
    expect(
      manifest.icons.map((i: { sizes: string; purpose?: string }) => `${i.sizes}${i.purpose ? `:${i.purpose}` : ''}`),
    ).toEqual(expect.arrayContaining(['192x192', '512x512', '512x512:maskable']));
  } finally {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
