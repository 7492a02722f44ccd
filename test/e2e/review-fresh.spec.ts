/**
 * The review page after a round (issue 16, bug 2): its counts and "Retake mistakes" follow the answers,
 * instead of saying "2 due" and "Retake mistakes (2)" after both were answered right.
 */
import { test, expect } from '@playwright/test';
import { answerSeries, getBank, openCardQuiz } from './progress-helpers.ts';

const DAY_MS = 86_400_000;

test('after answering every due question right, nothing is due and there is no mistake to retake', async ({ page }) => {
  const bank = await getBank(page);
  const t0 = Date.now();
  await page.clock.setFixedTime(t0);
  const quiz = await openCardQuiz(page, 'gpu-util');
  await answerSeries(quiz, bank, [false, false]);
  await page.clock.setFixedTime(t0 + 3 * DAY_MS);
  await page.goto('/review/');
  await expect(page.getByTestId('review-counts')).toHaveText('Now: 2 learning, then 10 new.');
  await expect(page.getByRole('button', { name: 'Retake mistakes (2)' })).toBeEnabled();
  await answerSeries(page.locator('section.quiz'), bank, [true, true]);
  await expect(page.getByTestId('review-counts')).toHaveText('Nothing to review now, then 10 new.');
  await expect(page.getByRole('button', { name: 'No mistakes to retake' })).toBeDisabled();
  // The same after a reload: the page says what the store holds.
  await page.reload();
  await expect(page.getByTestId('review-counts')).toHaveText('Nothing to review now, then 10 new.');
});
