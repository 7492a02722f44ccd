import { expect, type Locator, type Page } from '@playwright/test';

/** Presses Tab until focus is inside `scope` (keyboard-only navigation). */
export async function tabInto(page: Page, scope: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await scope.evaluate((el) => el.contains(document.activeElement))) return;
  }
  throw new Error('Tab never reached the quiz');
}

/** What kind of question is on screen. */
export async function questionKind(quiz: Locator): Promise<'single' | 'multiple' | 'numeric'> {
  if ((await quiz.locator('[role="radiogroup"]').count()) > 0) return 'single';
  if ((await quiz.locator('input[type="checkbox"]').count()) > 0) return 'multiple';
  return 'numeric';
}

/**
 * Answers the current question with the keyboard only: option 1 (single), option 1 then Enter
 * (multiple), or "1" then Enter (numeric); waits for the feedback. Returns the prompt text.
 */
export async function answerByKeyboard(page: Page, quiz: Locator): Promise<string> {
  const prompt = (await quiz.locator('.prompt').first().innerText()).trim();
  const kind = await questionKind(quiz);
  if (kind === 'numeric') {
    await expect(quiz.locator('input[inputmode="decimal"]')).toBeVisible();
    await quiz.locator('input[inputmode="decimal"]').focus(); // focus only; the typing below is keyboard
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
  } else {
    await page.keyboard.press('1');
    if (kind === 'multiple') await page.keyboard.press('Enter');
  }
  await expect(quiz.locator('.feedback h3').first()).toBeFocused();
  return prompt;
}

/**
 * Scrolls a figure to the top of the screen at once and waits until it is live; returns its locator. Instant, not
 * the page's smooth scroll: a slider's box read while the page still glides is not where a tap lands.
 */
export async function liveFigure(page: Page, selector: string): Promise<Locator> {
  const fig = page.locator(selector);
  await fig.evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
  await expect(fig).toHaveAttribute('data-live', '');
  return fig;
}
