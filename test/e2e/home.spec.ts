/**
 * Home in the first hour (issue 28): one filled button, the single best next thing; the daily goal asked once and
 * then shown with today's progress; the offline notice that can be closed and never hides the page's last lines.
 */
import { test, expect } from '@playwright/test';
import { answerSeries, getBank, openCardQuiz } from './progress-helpers.ts';
import { shootBothSchemes } from './shoot.ts';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test('a new learner is asked for a daily goal once; then home shows it with today’s progress', async ({ page }) => {
  await page.goto('/');
  const goal = page.locator('[data-daily-goal]');
  await expect(goal.getByRole('group', { name: 'Pick a daily goal' })).toBeVisible();
  await expect(page.locator('main a.button:not(.secondary)')).toHaveText(['Start reading']);
  await shootBothSchemes(page, 'home-goal-ask');
  await goal.getByLabel('Answer 10 questions').check();
  await expect(goal.getByRole('status')).toHaveText('Daily goal saved: Answer 10 questions.');
  await expect(goal.getByRole('group', { name: 'Pick a daily goal' })).toBeHidden();
  await expect(goal.locator('[data-goal-show]')).toContainText(
    'Answer 10 questions: 0 of 10 questions answered today.',
  );

  // Asked once: the next visit shows the goal, and answers move it.
  const bank = await getBank(page);
  const quiz = await openCardQuiz(page, 'gpu-util');
  await answerSeries(quiz, bank, [true, false]);
  await page.goto('/');
  await expect(goal.getByRole('group', { name: 'Pick a daily goal' })).toBeHidden();
  await expect(goal.locator('[data-goal-show]')).toContainText('2 of 10 questions answered today.');
  await expect(goal.getByRole('link', { name: 'Change goal' })).toHaveAttribute('href', '/progress/#rhythm-h');
  // One filled button, whatever else there is to do: here review (the mistake is back in a minute) or the next card.
  await expect(page.locator('main a.button:not(.secondary)')).toHaveCount(1);
  await shootBothSchemes(page, 'home-goal-shown');
  await page.goto('/progress/');
  await expect(page.getByLabel('Daily goal')).toHaveValue('answer-10');
});

test('the offline notice can be closed, comes back when the connection drops again, and never covers the end of a page', async ({
  page,
  context,
}) => {
  await page.goto('/about/');
  const notice = page.locator('[data-offline]');
  await context.setOffline(true);
  await expect(notice).toBeVisible();
  // Scrolled to the end, the footer's last line sits above the notice (the page grows by the notice's height).
  await expect
    .poll(async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const footer = (await page.locator('.site-footer').boundingBox())!;
      const box = (await notice.boundingBox())!;
      return footer.y + footer.height <= box.y + 1; // within a pixel: layout rounds fractions
    })
    .toBe(true);
  await shootBothSchemes(page, 'offline-notice');
  await notice.getByRole('button', { name: 'Hide the offline notice' }).click();
  await expect(notice).toBeHidden();
  await context.setOffline(false);
  await context.setOffline(true);
  await expect(notice).toBeVisible();
  await context.setOffline(false);
});

test('a returning learner’s week is drawn from the cached streak, without waiting for the store', async ({ page }) => {
  const bank = await getBank(page);
  const quiz = await openCardQuiz(page, 'gpu-util');
  await answerSeries(quiz, bank, [true, true, true, true, true]); // 5 answers: today counts
  await page.goto('/');
  await expect(page.locator('[data-week] li[aria-current="date"]')).toHaveAttribute('data-status', 'active');
  // The store's chunk never arrives (a slow phone, a flaky connection): the week is there all the same.
  await page.route(/\/_astro\/listen\.[^/]*\.js$/, (route) => route.abort());
  await page.reload();
  const week = page.locator('[data-week]');
  await expect(week).not.toHaveAttribute('data-pending');
  await expect(week.locator('li')).toHaveCount(7);
  await expect(week.locator('li[aria-current="date"]')).toHaveAttribute('data-status', 'active');
  await expect(week.locator('[data-week-summary]')).toHaveText(/^1 day in a row, today included\./);
});
