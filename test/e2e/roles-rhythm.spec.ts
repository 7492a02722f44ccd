/**
 * Roles (/roles/: cards per role, readiness, a 30-question quiz) and the daily rhythm on /progress/
 * (goal, the hour a day starts, the 7-day note), on a 390×844 phone, with screenshots light and dark
 * saved to artifacts/screenshots/ for a person to look at.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { answerCurrent, getBank, openProgress } from './progress-helpers.ts';

const DIR = 'artifacts/screenshots';
mkdirSync(DIR, { recursive: true });
const DAY_MS = 86_400_000;

test.use({
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  serviceWorkers: 'block',
  timezoneId: 'UTC',
});

async function shots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${DIR}/${name}-${scheme}.png`, animations: 'disabled' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('roles: each role lists cards that exist, readiness follows answers, and its quiz has 30 questions', async ({
  page,
}) => {
  await page.addInitScript(() => localStorage.setItem('saturate:install-dismissed', '1'));
  await page.goto('/topics/');
  await page.getByRole('link', { name: 'Roles' }).first().click();
  await expect(page).toHaveURL(/\/roles\/$/);
  const roles = page.locator('section.role');
  expect(await roles.count()).toBeGreaterThanOrEqual(6);
  for (const name of ['ML infrastructure engineer', 'MLOps engineer', 'Inference and serving engineer'])
    await expect(page.getByRole('heading', { level: 2, name })).toBeVisible();
  const hrefs = new Set(
    await page.locator('.role-cards a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!)),
  );
  expect(hrefs.size).toBeGreaterThan(30);
  const cardIds = new Set((await getBank(page)).map((q) => q.cardId));
  for (const href of hrefs) expect(cardIds.has(/^\/cards\/([^/]+)\/$/.exec(href)?.[1] ?? ''), href).toBe(true);
  expect((await page.request.get([...hrefs][0]!)).status()).toBe(200);
  const mle = page.locator('#ml-engineer');
  await expect(mle.locator('[data-readiness-text]')).toHaveText(
    /^Readiness 0%: none of its \d+ questions answered yet\. Each question you get right counts at once/,
  );
  const link = page.locator('.role-cards a').first();
  expect((await link.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await shots(page, 'roles');

  await mle.getByRole('link', { name: /Take the ML engineer quiz/ }).click();
  const quiz = page.locator('section.quiz');
  await expect(quiz.locator('.quiz-progress')).toHaveText('Question 1 of 30');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0); // hydrated: a tap now answers
  await answerCurrent(quiz, await getBank(page), true);
  await page.goto('/roles/');
  // One right answer moves readiness the same day (it used to wait for FSRS's review interval).
  await expect(mle.locator('[data-readiness-text]')).toHaveText(
    /your latest answer is right on 1 of its \d+ questions \(1 answered\)/,
  );
});

test('daily rhythm: the goal and the hour a day starts are kept, and a 7-day streak gets one quiet note', async ({
  page,
}) => {
  const now = Date.parse('2026-05-10T15:00:00Z');
  await page.clock.setFixedTime(now);
  await page.addInitScript(() => localStorage.setItem('saturate:install-dismissed', '1'));
  const dash = await openProgress(page);
  const panel = page.locator('[data-rhythm]');
  const goal = panel.getByLabel('Daily goal');
  const hour = panel.getByLabel('A new day starts at');
  await expect(goal).toBeEnabled();
  await expect(goal).toHaveValue('streak-rule');
  await expect(hour).toHaveValue('4'); // a new learner's day starts at 4:00
  for (const control of [goal, hour]) expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await goal.selectOption('answer-10');
  await expect(panel.locator('[data-goal-progress]')).toHaveText('0 of 10 questions answered today.');
  await hour.selectOption('6');
  // In the locale's own clock (en-US here: "6:00 AM", the space before AM may be a narrow one).
  await expect(panel.locator('[data-rhythm-saved]')).toHaveText(/^Saved: from now on, a new day starts at 6:00\sAM\.$/);
  await page.reload();
  await expect(goal).toHaveValue('answer-10');
  await expect(hour).toHaveValue('6');

  // Seven days of reading, one a day up to today (imported as a backup).
  const events = Array.from({ length: 7 }, (_, i) => {
    const at = now - (6 - i) * DAY_MS - 3_600_000;
    return {
      id: `${at}-seven${i}`,
      at,
      tz: 'UTC',
      offsetMin: 0,
      type: 'card-read',
      cardId: 'gpu-util',
      topic: 'meters',
    };
  });
  const backup = { format: 'saturate-progress', version: 1, exportedAt: now, events };
  await dash.getByLabel(/Import a backup/).setInputFiles({
    name: 'seven-days.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(backup)),
  });
  await dash
    .getByTestId('import-preview')
    .getByRole('button', { name: /^Import \d+ records$/ })
    .click();
  await expect(dash.getByTestId('streak-current')).toHaveText('7 days');
  const note = page.locator('[data-milestone]');
  await expect(note).toHaveText(/7 days in a row/);
  await expect(note).toHaveAttribute('role', 'status');
  await expect(panel.locator('[data-goal-progress]')).toHaveText('0 of 10 questions answered today.');
  await shots(page, 'rhythm');

  // Reduced motion: the note appears without moving.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await note.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
  await note.getByRole('button', { name: 'Dismiss' }).click();
  await expect(note).toBeHidden();
  await page.goto('/');
  await expect(page.locator('[data-week-summary]')).toHaveText(/^7 days in a row/);
  await expect(page.locator('[data-milestone]')).toBeHidden(); // once each: dismissed stays dismissed
});
