import { test, expect, chromium, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, chromiumPath } from './browser.ts';
import { startSite } from './site-server.ts';
import { openCardQuiz } from './progress-helpers.ts';

/** Visits once online and waits until the service worker controls the page. */
async function installOffline(page: Page): Promise<void> {
  await page.goto('/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
  // The precache is complete once the worker is active.
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    if (!reg.active) throw new Error('no active worker');
  });
}

async function cardUrls(page: Page): Promise<string[]> {
  await page.goto('/topics/');
  return page
    .locator('.card-list a[data-card]')
    .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href')!));
}

test.describe('offline', () => {
  test('after one online visit, every card, quiz and page opens offline, with and without a trailing slash', async ({
    page,
    context,
  }) => {
    test.slow(); // two navigations per card, over the whole deck
    const cards = await cardUrls(page);
    await installOffline(page);
    await context.setOffline(true);
    for (const url of cards) {
      for (const variant of [url, url.replace(/\/$/, '')]) {
        await page.goto(variant);
        await expect(page.getByRole('heading', { level: 2, name: 'One canonical example' })).toBeVisible();
      }
    }
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
  });

  test('an unknown URL offline gets the offline page, not the browser error', async ({ page, context }) => {
    await installOffline(page);
    await context.setOffline(true);
    await page.goto('/cards/not-downloaded-yet/');
    await expect(page.getByRole('heading', { level: 1, name: "You're offline" })).toBeVisible();
  });

  test('a quiz answered offline survives a reload', async ({ page, context }) => {
    await installOffline(page);
    await context.setOffline(true);
    const quiz = await openCardQuiz(page, 'gpu-util');
    await quiz.locator('[data-option]').first().click();
    await expect(quiz.locator('.feedback h3')).toBeVisible();
    await page.reload();
    await page.locator('section.quiz').scrollIntoViewIfNeeded();
    await expect(page.locator('section.quiz .feedback h3')).toBeVisible();
  });

  test('search works offline', async ({ page, context }) => {
    await installOffline(page);
    await page.goto('/search/');
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('searchbox').fill('kernel');
    await expect(page.locator('[data-search-results] li').first()).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: /results? for/ })).toBeVisible();
  });
});

test('a new deploy shows "New cards available" and reloads into the new worker', async ({ page }) => {
  const site = await startSite();
  try {
    await page.goto(`${site.url}/`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
    await expect(page.locator('[data-update]')).toBeHidden();
    // Deploy: the worker file changes.
    const sw = join(site.dir, 'sw.js');
    writeFileSync(sw, `${readFileSync(sw, 'utf8')}\n// next deploy\n`);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    const banner = page.locator('[data-update]');
    await expect(banner).toBeVisible({ timeout: 30_000 });
    await expect(banner).toContainText('New cards available');
    expect(await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.waiting)).toBe(true);
    await Promise.all([page.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
    await expect(page.locator('[data-update]')).toBeHidden();
    expect(await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.waiting)).toBe(false);
  } finally {
    await site.dispose();
  }
});

test('Chrome finds the app installable (persistent profile)', async ({ baseURL }) => {
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
