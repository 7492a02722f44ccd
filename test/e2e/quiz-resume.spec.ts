/**
 * Finish what you start (issue 16): a quiz in progress is kept on the device (IndexedDB), so a new
 * tab, or the app opened again, goes on at the question the learner was on, and home offers it.
 * A new page in the same browser context shares IndexedDB but not sessionStorage, as a new tab does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, testChromiumPath } from './browser.ts';
import { answerCurrent, answerSeries, getBank, openCardQuiz, savedQuizzes } from './progress-helpers.ts';
import { answerQuickly } from './quiz-fast.ts';
import { shootBothSchemes } from './shoot.ts';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

test('a practice quiz answered in part resumes in a new tab at the right question, from home', async ({ context }) => {
  const page = await context.newPage();
  const bank = await getBank(page);
  await page.goto('/practice/random/?seed=resume1');
  const quiz = page.locator('section.quiz');
  const ids = await answerSeries(quiz, bank, [true, false, true, false]);
  await expect(quiz.locator('.quiz-progress')).toHaveText('Question 5 of 30');
  // Stored on the device before the next tab looks (a tap's save lands a moment after the screen moves on).
  await expect.poll(async () => (await savedQuizzes(page)).map((q) => q.index)).toEqual([4]);
  const prompt5 = await quiz.locator('.prompt').first().getAttribute('id');

  const tab = await context.newPage();
  await tab.goto('/');
  const resume = tab.locator('#continue a[data-step="resume"]');
  await expect(resume).toHaveText(['Resume Random practice quiz: 4/30']);
  await shootBothSchemes(tab, 'home-resume');
  await resume.click();
  await expect(tab).toHaveURL(/\/practice\/random\/\?seed=resume1$/);
  const again = tab.locator('section.quiz');
  await expect(again.locator('.quiz-progress')).toHaveText('Question 5 of 30');
  await expect(again.locator('.prompt').first()).toHaveAttribute('id', prompt5!);
  await answerCurrent(again, bank, true);
  await again.getByRole('button', { name: 'Next question' }).click();
  await expect(again.locator('.quiz-progress')).toHaveText('Question 6 of 30');
  expect(ids).toHaveLength(4);
});

test('a card quiz in progress is offered on home until it is finished', async ({ page }) => {
  const bank = await getBank(page);
  const quiz = await openCardQuiz(page, 'gpu-util');
  const total = Number((await quiz.locator('.quiz-progress').innerText()).match(/of (\d+)/)![1]);
  await answerSeries(quiz, bank, [false]);
  await expect.poll(async () => (await savedQuizzes(page)).map((q) => q.index)).toEqual([1]);
  await page.goto('/');
  await expect(page.locator('#continue a[data-step="resume"]')).toHaveText([
    `Resume Card quiz: GPU utilization: are you wasting your most expensive resource?: 1/${total}`,
  ]);
  await page.locator('#continue a[data-step="resume"]').click();
  const again = page.locator('section.quiz');
  await again.scrollIntoViewIfNeeded();
  await expect(again.locator('.quiz-progress')).toHaveText(`Question 2 of ${total}`);
  await answerQuickly(again, bank, Array<boolean>(total - 1).fill(true));
  await expect(again.getByTestId('score')).toHaveText(`${total - 1} / ${total}`);

  // Finished: nothing left to resume.
  await page.goto('/');
  await expect(page.locator('[data-week-summary]')).not.toBeEmpty();
  await expect(page.locator('#continue a[data-step="resume"]')).toHaveCount(0);
  expect(await savedQuizzes(page)).toEqual([]);

  // Back on the card, the finished quiz shows its last score, not "Question 1"; "Practise again" starts it over.
  await page.goto('/cards/gpu-util/');
  const card = page.locator('section.quiz');
  await card.scrollIntoViewIfNeeded();
  await expect(card.getByTestId('quiz-last')).toHaveText(`Last time: ${total - 1} of ${total}`);
  await expect(card.locator('.quiz-progress')).toHaveText(`${total} questions`);
  await card.getByRole('button', { name: 'Practise again' }).click();
  await expect(card.locator('.quiz-progress')).toHaveText(`Question 1 of ${total}`);
  await expect(card.locator('.prompt').first()).toBeFocused();
});

test('a practice quiz resumes after the browser itself was closed and opened again on the same profile', async ({
  baseURL,
}) => {
  // The app closed for real: the whole browser exits, and a new one starts on the same profile folder.
  const profile = mkdtempSync(join(tmpdir(), 'saturate-profile-'));
  const executablePath = testChromiumPath();
  const open = () =>
    chromium.launchPersistentContext(profile, {
      ...(executablePath ? { executablePath } : {}),
      args: CHROMIUM_ARGS,
      ...(baseURL ? { baseURL } : {}),
      viewport: { width: 390, height: 844 },
    });
  try {
    const first = await open();
    const page = first.pages()[0] ?? (await first.newPage());
    const bank = await getBank(page);
    await page.goto('/practice/random/?seed=reopen1');
    const quiz = page.locator('section.quiz');
    await answerSeries(quiz, bank, [true, true, false]);
    await expect(quiz.locator('.quiz-progress')).toHaveText('Question 4 of 30');
    await expect.poll(async () => (await savedQuizzes(page)).map((q) => q.index)).toEqual([3]);
    const prompt4 = await quiz.locator('.prompt').first().getAttribute('id');
    await first.close();

    const second = await open();
    const again = second.pages()[0] ?? (await second.newPage());
    await again.goto('/');
    const resume = again.locator('#continue a[data-step="resume"]');
    await expect(resume).toHaveText(['Resume Random practice quiz: 3/30']);
    await resume.click();
    await expect(again.locator('section.quiz .quiz-progress')).toHaveText('Question 4 of 30');
    await expect(again.locator('section.quiz .prompt').first()).toHaveAttribute('id', prompt4!);
    await second.close();
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});
