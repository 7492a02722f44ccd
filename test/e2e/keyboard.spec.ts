/**
 * A keyboard-only learner: reads a card and answers its quiz, reviews a due question, then runs a
 * lab in the page simulator and applies the fix — Tab, Enter, Space, digits and arrows only.
 * (Pages are opened by URL, as typing an address is keyboard too.)
 */
import { test, expect, type Page } from '@playwright/test';
import { answerByKeyboard, tabInto } from './helpers.ts';
import { openCardQuiz } from './progress-helpers.ts';

/** Presses Tab until the focused element matches `name` (accessible text) and `tag`, or fails. */
async function tabTo(page: Page, name: RegExp, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? `${el.getAttribute('aria-label') ?? ''} ${el.innerText ?? ''}`.trim() : '';
    });
    if (name.test(label)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

test('keyboard only: card → quiz → review → lab', async ({ page }) => {
  test.slow();
  // Card and its quiz.
  const quiz = await openCardQuiz(page, 'gpu-util');
  await tabInto(page, quiz);
  for (let i = 0; i < 3; i++) {
    await answerByKeyboard(page, quiz);
    await page.keyboard.press('Enter');
  }
  await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 4 of/);

  // Review: the questions just answered are in the queue; answer one by keys.
  await page.goto('/review/');
  const review = page.locator('section.quiz').first();
  await expect(review).toBeVisible({ timeout: 15_000 });
  await tabInto(page, review);
  await answerByKeyboard(page, review);
  await expect(review.locator('.feedback h3').first()).toBeFocused();

  // Lab: start the in-page simulator (real time), apply the fix, see the step pass.
  await page.goto('/labs/data-loader-starvation/');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await tabTo(page, /Start the simulation/);
  await page.keyboard.press('Enter');
  await expect(page.locator('.lab-banner')).toContainText('SIMULATED');
  const step2 = page.getByTestId('step-state-add-workers');
  await expect(step2).toHaveText('Your turn', { timeout: 60_000 });
  await tabTo(page, /Set num_workers = 8/);
  await page.keyboard.press('Enter');
  await expect(step2).toHaveText('Passed', { timeout: 60_000 });
  await expect(page.getByTestId('lab-complete')).toBeVisible();
});
