/**
 * Results that lead somewhere (issue 16), on a phone: the summary comes first (score, time, score by
 * topic, where the mistakes went in the review schedule), the actions above and below, and every
 * question's explanation collapsed; a curated quiz shows its best and last score when opened again.
 */
import { test, expect, type Page } from '@playwright/test';
import { axe } from './axe.ts';
import { getBank } from './progress-helpers.ts';
import { answerQuickly } from './quiz-fast.ts';
import { shootBothSchemes } from './shoot.ts';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, timezoneId: 'UTC', locale: 'en-GB' });

/** Serious or critical axe violations in `selector`, one line each. */
async function axeProblems(page: Page, selector: string): Promise<string[]> {
  const { violations } = await axe(page)
    .include(selector)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('a finished practice quiz leads with its summary, its actions and the review it scheduled', async ({ page }) => {
  // Fixed clock: FSRS schedules a new mistake again one minute later (its first learning step).
  await page.clock.setFixedTime(new Date('2026-03-28T10:00:00Z'));
  const bank = await getBank(page);
  await page.goto('/practice/random/?seed=results1');
  const quiz = page.locator('section.quiz');
  const pattern = Array.from({ length: 30 }, (_, i) => i % 5 !== 0); // 6 wrong
  await answerQuickly(quiz, bank, pattern);

  await expect(quiz.getByRole('heading', { name: 'Results' })).toBeFocused();
  await expect(quiz.getByTestId('score')).toHaveText('24 / 30');
  await expect(quiz.getByTestId('review-note')).toHaveText(
    '6 mistakes added to your review queue as learning: back today at 10:01.',
  );
  // Summary first: the actions are on the phone's first screen of results, and again at the end.
  const retake = quiz.getByRole('button', { name: 'Retake' });
  await expect(retake).toHaveCount(2);
  await expect(retake.first()).toBeInViewport();
  await shootBothSchemes(page, 'quiz-results');
  expect(await axeProblems(page, '.summary')).toEqual([]);
  await expect(quiz.locator('.summary > .actions').first().getByRole('link')).toHaveText(['New quiz', 'Review']);
  const topics = quiz.getByTestId('by-topic').locator('> li');
  expect(await topics.count()).toBeGreaterThan(1);
  const perTopic = await topics.allInnerTexts();
  const sum = perTopic
    .map((t) =>
      t
        .match(/(\d+) \/ (\d+)/)!
        .slice(1)
        .map(Number),
    )
    .reduce((a, [r, n]) => [a[0]! + r!, a[1]! + n!], [0, 0]);
  expect(sum).toEqual([24, 30]);
  // Every explanation is collapsed, mistakes first; opening one shows why.
  const mistakes = quiz.getByTestId('mistakes').locator('> li > details');
  await expect(mistakes).toHaveCount(6);
  await expect(quiz.getByTestId('right-answers').locator('> li > details')).toHaveCount(24);
  await expect(quiz.locator('.summary details[open]')).toHaveCount(0);
  await expect(mistakes.first().locator('.feedback')).toBeHidden();
  await mistakes.first().locator('> summary').click();
  await expect(mistakes.first().locator('.feedback h3')).toHaveText('Not quite');
  await quiz.locator('.summary > .actions').last().getByRole('link', { name: 'Review' }).click();
  await expect(page).toHaveURL(/\/review\/$/);
});

test('a curated quiz shows its best and last score; /progress/ lists each attempt by topic, with the trend', async ({
  page,
}) => {
  test.setTimeout(90_000); // 60 answers, two quizzes taken in full, and two views shot in both schemes
  await page.clock.setFixedTime(new Date('2026-03-28T10:00:00Z'));
  const bank = await getBank(page);
  await page.goto('/practice/fleet-operations/');
  const quiz = page.locator('section.quiz');
  const title = (await page.getByRole('heading', { level: 1 }).innerText()).trim();
  await answerQuickly(
    quiz,
    bank,
    Array.from({ length: 30 }, (_, i) => i % 10 !== 0),
  );
  await expect(quiz.getByTestId('score')).toHaveText('27 / 30');
  await page.clock.setFixedTime(new Date('2026-03-29T10:00:00Z'));
  await quiz.getByRole('button', { name: 'Retake' }).first().click();
  await answerQuickly(
    quiz,
    bank,
    Array.from({ length: 30 }, (_, i) => i % 5 !== 0),
  );
  await expect(quiz.getByTestId('score')).toHaveText('24 / 30');

  await page.reload();
  await expect(page.getByTestId('quiz-record')).toHaveText(
    'Your best: 27 / 30 (90%) · last: 24 / 30 (80%) on 29 Mar 2026 · taken 2 times.',
  );
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  await shootBothSchemes(page, 'curated-quiz-record');

  await page.goto('/progress/');
  const history = page.locator('[data-practice-history]');
  await expect(history.getByTestId('practice-trend')).toHaveText('Last 2 quizzes: 85% right.');
  const attempts = history.getByTestId('history-attempts').locator('> li');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.first()).toContainText(`24 / 30 (80%) · ${title}`);
  await expect(attempts.last()).toContainText('27 / 30 (90%)');
  const rows = await history.getByTestId('history-topics').locator('tbody tr').allInnerTexts();
  const totals = rows.map((r) =>
    r
      .match(/(\d+) \/ (\d+)/)!
      .slice(1)
      .map(Number),
  );
  await history.evaluate((el) =>
    window.scrollTo({ top: el.getBoundingClientRect().top + window.scrollY - 60, behavior: 'instant' }),
  );
  await shootBothSchemes(page, 'practice-history');
  expect(await axeProblems(page, '[data-practice-history]')).toEqual([]);
  expect(totals.reduce((a, [r, n]) => [a[0]! + r!, a[1]! + n!], [0, 0])).toEqual([51, 60]);
});
