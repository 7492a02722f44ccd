/**
 * After answering on a phone, the feedback's heading and its first line are on screen above the
 * fixed tab bar (issue 16: at 390×844 focus moved to "Not quite" at y = 815–844, under the bar at
 * y = 791–844), and so is "Next question" (issue 28: it was below the fold after every answer).
 * Card quizzes, practice and review: the same quiz, three pages.
 */
import { test, expect, type Locator, type Page } from '@playwright/test';
import { answerCurrent, getBank, openCardQuiz, type BankQuestion } from './progress-helpers.ts';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

/**
 * Where the feedback heading and the first line of text under it are, where the tab bar starts, and where the
 * "Next question" button is (px).
 */
async function feedbackPlace(
  page: Page,
): Promise<{ headTop: number; lineBottom: number; barTop: number; nextTop: number; nextBottom: number }> {
  return page.evaluate(() => {
    const heading = document.querySelector<HTMLElement>('.feedback h3')!;
    const walker = document.createTreeWalker(heading.parentElement!, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) =>
        !heading.contains(n) && n.textContent?.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP,
    });
    const range = document.createRange();
    range.selectNodeContents(walker.nextNode()!);
    const next = document.querySelector('section.quiz .after-answer .actions .button')!.getBoundingClientRect();
    return {
      headTop: heading.getBoundingClientRect().top,
      lineBottom: range.getClientRects()[0]!.bottom,
      barTop: document.querySelector('.site-nav')!.getBoundingClientRect().top,
      nextTop: next.top,
      nextBottom: next.bottom,
    };
  });
}

/**
 * Scrolls as a learner reading down the page does: the question's last control (an option or the
 * Check button) ends just above the tab bar, so the feedback appears below the fold.
 */
async function questionAtBottom(page: Page): Promise<void> {
  await page.evaluate(() => {
    const prompt = document.querySelector('section.quiz .prompt')!;
    const question = prompt.closest('fieldset') ?? prompt.parentElement!;
    const barTop = document.querySelector('.site-nav')!.getBoundingClientRect().top;
    scrollBy({ top: question.getBoundingClientRect().bottom - (barTop - 4), behavior: 'instant' });
  });
}

/** Answers the first three questions wrong, by tapping; after each, the feedback can be read at once. */
async function answerAndSee(page: Page, quiz: Locator, bank: BankQuestion[]): Promise<void> {
  for (let i = 0; i < 3; i++) {
    if (i > 0) await quiz.getByRole('button', { name: 'Next question' }).click();
    await questionAtBottom(page);
    const id = await answerCurrent(quiz, bank, false);
    await expect(quiz.locator('.feedback h3')).toBeFocused();
    await expect
      .poll(async () => {
        const p = await feedbackPlace(page);
        // The next action is on screen too, without scrolling (issue 28): "Next question" above the tab bar.
        const nextSeen = p.nextTop >= 0 && p.nextBottom <= p.barTop;
        return p.headTop >= 0 && p.lineBottom <= p.barTop && nextSeen ? 'visible' : `${id}: ${JSON.stringify(p)}`;
      })
      .toBe('visible');
  }
}

/** The three places the quiz runs, each opened at its first question. */
const PLACES: { name: string; open: (page: Page) => Promise<Locator> }[] = [
  { name: 'card quiz', open: (page) => openCardQuiz(page, 'gpu-util') },
  { name: 'practice quiz', open: (page) => firstQuestion(page, '/practice/random/?seed=phone-feedback') },
  { name: 'review', open: (page) => firstQuestion(page, '/review/') },
];

async function firstQuestion(page: Page, path: string): Promise<Locator> {
  await page.goto(path);
  const quiz = page.locator('section.quiz');
  await expect(quiz.locator('.prompt').first()).toBeVisible();
  return quiz;
}

test.describe('after answering on a phone, the feedback is above the tab bar', () => {
  for (const { name, open } of PLACES)
    test(name, async ({ page }) => {
      const bank = await getBank(page);
      await answerAndSee(page, await open(page), bank);
    });
});
