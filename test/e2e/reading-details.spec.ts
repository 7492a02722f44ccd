/**
 * Small things a learner on a phone noticed (issue "A learning app"): each test failed before its fix.
 */
import { test, expect } from '@playwright/test';
import { answerSeries, getBank, openCardQuiz, openProgress } from './progress-helpers.ts';

test('a browser whose language tag Intl rejects ("C", WebKit under a POSIX locale) still runs a lab', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'language', { get: () => 'C', configurable: true });
  });
  await page.goto('/labs/data-loader-starvation/');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0); // hydrated: a click before that does nothing
  await page.getByRole('button', { name: 'Start the simulation' }).click();
  await expect(page.locator('.lab-banner')).toContainText('SIMULATED');
  await expect(page.locator('.lab-chart figcaption').first()).toContainText('GPU-Util', { timeout: 20_000 });
  expect(errors).toEqual([]);
});

test('a word that is nowhere in the site finds nothing; a real word finds cards', async ({ page }) => {
  await page.goto('/search/?q=xyzzy');
  await expect(page.locator('[data-search-status]')).toHaveText('No results for “xyzzy”.');
  await expect(page.locator('[data-search-results] li')).toHaveCount(0);
  await page.goto('/search/?q=throttling');
  await expect(page.locator('[data-search-results] li').first()).toBeVisible();
});

test('the header search icon lands in the search box, ready to type', async ({ page }) => {
  await page.goto('/');
  await page.locator('header a[href$="/search/"]').first().click();
  await expect(page).toHaveURL(/\/search\/$/);
  await expect(page.locator('#q')).toBeFocused();
});

test('one active day reads "1 active day"', async ({ page }) => {
  const bank = await getBank(page);
  await answerSeries(await openCardQuiz(page, 'gpu-util'), bank, [true]);
  const dash = await openProgress(page);
  await expect(dash.getByText(/^1 active day in 12 weeks$/)).toBeVisible();
});

test.describe('on a touch screen', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  test('the quiz does not talk about number keys', async ({ page }) => {
    const quiz = await openCardQuiz(page, 'gpu-util');
    await expect(quiz.locator('.hint').first()).toBeVisible();
    await expect(quiz.locator('.hint').first()).not.toContainText('keys', { useInnerText: true });
  });
});

test('with a keyboard, the quiz says which number keys pick an option', async ({ page }) => {
  const quiz = await openCardQuiz(page, 'gpu-util');
  await expect(quiz.locator('.hint').first()).toContainText(/keys 1–\d/, { useInnerText: true });
});
