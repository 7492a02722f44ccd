/**
 * Progress where the learner looks (issue 16): read, due and mastered marks on card lists, in words,
 * and "Continue" on home with the next unread card. (The mastered rule itself: test/unit/card-marks.test.ts.)
 */
import { test, expect } from '@playwright/test';
import { answerSeries, getBank, openCardQuiz } from './progress-helpers.ts';

const DAY_MS = 86_400_000;

test('a read card is marked Read on the topics page; three days after a mistake it is Due for review', async ({
  page,
}) => {
  const bank = await getBank(page);
  const t0 = Date.now();
  await page.clock.setFixedTime(t0);
  await page.goto('/topics/');
  const link = page.locator('[data-marks] a[data-card="gpu-util"]');
  await expect(link).toBeVisible();
  await expect(link.locator('.marks')).toHaveCount(0);
  const quiz = await openCardQuiz(page, 'gpu-util');
  await answerSeries(quiz, bank, [false]);
  await page.goto('/topics/');
  await expect(link.locator('.mark')).toHaveText(['Read']);
  await expect(link).toHaveAccessibleName(/Read\.$/);
  await expect(page.locator('[data-marks] a[data-card="dcgm-profiling-metrics"] .marks')).toHaveCount(0);
  // A card page does not load the store: its related list is marked from what the topics page cached,
  // once the reader comes near it (the marks' code loads only then).
  await page.goto('/cards/dcgm-profiling-metrics/');
  await expect(page.locator('.related-list a[data-card="gpu-util"] .marks')).toHaveCount(0);
  await page.locator('.related-list').scrollIntoViewIfNeeded();
  await expect(page.locator('.related-list a[data-card="gpu-util"] .mark')).toHaveText(['Read']);
  await page.clock.setFixedTime(t0 + 3 * DAY_MS);
  await page.goto('/topics/meters/');
  await expect(link.locator('.mark')).toHaveText(['Read', 'Due for review']);
  await expect(link).toHaveAccessibleName(/Read, Due for review\.$/);
});

test('home has one primary button: "Start reading", then the next unread card once one is read', async ({ page }) => {
  await page.goto('/');
  const cont = page.locator('#continue');
  await expect(page.locator('[data-read-next] li:not([hidden])').first()).toBeVisible();
  await expect(cont.locator('a.button:not(.secondary)')).toHaveText(['Start reading']);
  const first = await page.locator('[data-start-reading]').getAttribute('href');
  const slug = first!.split('/').at(-2)!;
  await openCardQuiz(page, slug);
  await page.goto('/');
  await expect(page.locator('[data-start-reading]')).toHaveCount(0); // reading has started
  const nextId = await page.locator('[data-read-next] li:not([hidden])').first().getAttribute('data-card-id');
  const go = cont.getByRole('link', { name: /^Next card: / });
  await expect(page.locator('main a.button:not(.secondary)')).toHaveCount(1); // one filled button on the page
  await expect(cont.locator('a.button').first()).toHaveText(/^Next card: /);
  await expect(go).toHaveAttribute('href', `/cards/${nextId}/`);
  expect(nextId).not.toBe(slug);
  // The read card is marked on home's list too, where it is shown (it left "Read next").
  await go.click();
  await expect(page).toHaveURL(`/cards/${nextId}/`);
});
