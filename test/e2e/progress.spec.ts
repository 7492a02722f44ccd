import { test, expect, type Page } from '@playwright/test';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { answerCurrent, answerSeries, getBank, openCardQuiz, openProgress, savedQuizzes } from './progress-helpers.ts';
import { installOffline, INSTALL_MS } from './sw.ts';

const DAY_MS = 86_400_000;
const badge = (page: Page) => page.locator('[data-streak-badge]');

test.describe('progress on the device', () => {
  test('answers and a read card survive a reload: header streak and progress page', async ({ page }) => {
    const bank = await getBank(page);
    // A newcomer sees no "0" flame: the badge waits for the first day that counts.
    await page.goto('/');
    await expect(badge(page)).toHaveAttribute('data-streak-ready', '');
    await expect(badge(page)).toBeHidden();
    const quiz = await openCardQuiz(page, 'gpu-util'); // reading to the quiz counts the card as read: today counts
    await answerSeries(quiz, bank, [true, false, true, true, false]);
    await expect(badge(page)).toHaveAttribute('aria-label', /^Streak: 1 day, today done\./);
    await expect(badge(page)).toHaveText('1');
    await page.reload();
    await expect(badge(page)).toHaveText('1');
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('5');
    await expect(dash.getByTestId('total-accuracy')).toHaveText('60%');
    await expect(dash.getByTestId('total-cards')).toHaveText(/^1 of \d+$/);
    await expect(dash.getByTestId('streak-current')).toHaveText('1 day');
    await expect(dash.getByTestId('topics').locator('tr[data-topic="meters"] td').first()).toHaveText('5');
    // The heatmap says in words what today held.
    await expect(dash.getByTestId('heatmap').getByText(/: 5 answers, 1 card read$/)).toHaveCount(1);
    // Home: the week strip marks today done, and "Read next" skips the card just read.
    await page.goto('/');
    await expect(page.locator('[data-week-days] li[aria-current="date"]')).toHaveAttribute('data-status', 'active');
    await expect(page.locator('[data-read-next] li:not([hidden])')).toHaveCount(3);
    await expect(page.locator('[data-read-next] li[data-card-id="gpu-util"]')).toBeHidden();
  });

  test('a card read on a slow network just before its tab closes is kept, once', async ({ context }) => {
    // The write path loads on the learner's first move (src/client/progress-handoff.ts); here it has not
    // arrived when the card counts as read and the tab closes, so the event goes to localStorage.
    const card = await context.newPage();
    await card.route(/progress-writer[^/]*\.js$/, () => undefined); // never answered: the tab closes first
    await card.goto('/cards/gpu-util/');
    const read = card.evaluate(
      () => new Promise<void>((done) => addEventListener('saturate:card-read', () => done(), { once: true })),
    );
    await card.locator('[data-card-end]').evaluate((el) => el.scrollIntoView({ block: 'center', behavior: 'instant' }));
    await read;
    await card.close({ runBeforeUnload: true });
    const page = await context.newPage();
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-cards')).toHaveText(/^1 of \d+$/);
    await expect(dash.getByTestId('heatmap').getByText(/: 0 answers, 1 card read$/)).toHaveCount(1);
    await page.reload(); // recorded once: the next page took it out of localStorage
    await expect(dash.getByTestId('heatmap').getByText(/: 0 answers, 1 card read$/)).toHaveCount(1);
    expect(await page.evaluate(() => localStorage.getItem('saturate:unwritten'))).toBeNull();
  });

  test('two tabs answering at the same time: both counts are right', async ({ context }) => {
    const [a, b] = [await context.newPage(), await context.newPage()];
    const bank = await getBank(a);
    await Promise.all([a.goto('/practice/random/?seed=tabsA'), b.goto('/practice/random/?seed=tabsB')]);
    const qa = a.locator('section.quiz');
    const qb = b.locator('section.quiz');
    await Promise.all([
      answerSeries(qa, bank, [true, true, false, true]),
      answerSeries(qb, bank, [false, true, true, true]),
    ]);
    // Neither tab alone reached 5 answers today; together they did, and each tab hears the other.
    await expect(badge(a)).toHaveText('1');
    await expect(badge(b)).toHaveText('1');
    const dash = await openProgress(a);
    await expect(dash.getByTestId('total-answers')).toHaveText('8');
    await expect(dash.getByTestId('total-accuracy')).toHaveText('75%');
  });

  test('export, clear site data, import: everything is back', async ({ page, browser }) => {
    const bank = await getBank(page);
    const quiz = await openCardQuiz(page, 'gpu-util');
    await answerSeries(quiz, bank, [true, true, false, true, true]);
    await page.getByRole('button', { name: 'Save for revision' }).click();
    await expect(page.getByRole('button', { name: 'Saved for revision' })).toHaveAttribute('aria-pressed', 'true');
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('5');
    const download = page.waitForEvent('download');
    await dash.getByRole('button', { name: 'Export backup' }).click();
    const file = join(mkdtempSync(join(tmpdir(), 'saturate-export-')), (await download).suggestedFilename());
    await (await download).saveAs(file);
    expect(file).toMatch(/saturate-progress-\d{4}-\d\d-\d\d\.json$/);
    const backup = JSON.parse(readFileSync(file, 'utf8')) as { format: string; version: number; events: unknown[] };
    expect(backup).toMatchObject({ format: 'saturate-progress', version: 1 });

    // A fresh profile: nothing stored.
    const fresh = await browser.newContext();
    const p2 = await fresh.newPage();
    const empty = await openProgress(p2);
    await expect(empty.getByTestId('total-answers')).toHaveText('0');
    await expect(p2.locator('[data-saved-list] li:not([hidden])')).toHaveCount(0);
    await empty.getByLabel(/Import a backup/).setInputFiles(file);
    const preview = empty.getByTestId('import-preview');
    await expect(preview).toContainText(`${backup.events.length} new ones would be added, 0 already here`);
    await expect(preview).toContainText('5 answers');
    await expect(preview).toContainText('1 card saved');
    await expect(empty.getByTestId('total-answers')).toHaveText('0'); // the preview changes nothing
    await preview.getByRole('button', { name: /^Import \d+ records$/ }).click();
    await expect(empty.getByTestId('import-done')).toContainText(`${backup.events.length} new records added`);
    await expect(empty.getByTestId('total-answers')).toHaveText('5');
    await expect(empty.getByTestId('total-accuracy')).toHaveText('80%');
    await expect(empty.getByTestId('streak-current')).toHaveText('1 day');
    await expect(p2.locator('[data-saved-list] li:not([hidden])')).toHaveText([/GPU utilization/]);
    // Importing the same file again adds nothing.
    await empty.getByLabel(/Import a backup/).setInputFiles(file);
    await expect(empty.getByTestId('import-preview')).toContainText('0 new ones would be added');
    await expect(empty.getByRole('button', { name: 'Nothing to import' })).toBeDisabled();
    await fresh.close();
  });

  test('a bad import file shows a clear message and changes nothing', async ({ page }) => {
    const bank = await getBank(page);
    const quiz = await openCardQuiz(page, 'gpu-util');
    await answerSeries(quiz, bank, [true, false]);
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('2');
    const dir = mkdtempSync(join(tmpdir(), 'saturate-bad-'));
    const files: [string, string | Buffer, RegExp][] = [
      ['notes.json', 'this is not json', /not JSON/],
      [
        'newer.json',
        JSON.stringify({ format: 'saturate-progress', version: 9, exportedAt: 1, events: [] }),
        /newer version of Saturate/,
      ],
      ['other.json', JSON.stringify({ hello: 'world' }), /not a Saturate backup/],
      [
        'damaged.json',
        JSON.stringify({
          format: 'saturate-progress',
          version: 1,
          exportedAt: 1,
          events: [{ id: 'x', type: 'answer' }],
        }),
        /damaged/,
      ],
      ['huge.json', Buffer.alloc(50 * 1024 * 1024, 0x20), /larger than 32 MB/],
    ];
    for (const [name, body, message] of files) {
      const path = join(dir, name);
      writeFileSync(path, body);
      await dash.getByLabel(/Import a backup/).setInputFiles(path);
      const alert = dash.getByTestId('import-error');
      await expect(alert).toContainText(message);
      await expect(alert).toContainText(/Nothing was (changed|imported)/);
      await expect(dash.getByTestId('import-preview')).toHaveCount(0);
    }
    await page.reload();
    await expect(page.getByTestId('total-answers')).toHaveText('2');
  });

  test('a card saved offline is on the saved list offline', async ({ page, context }) => {
    test.setTimeout(INSTALL_MS);
    await installOffline(page);
    await context.setOffline(true);
    await page.goto('/cards/gpu-util/');
    const save = page.locator('[data-save-card]');
    await expect(save).toHaveAttribute('aria-pressed', 'false');
    await expect(save).toHaveAccessibleName('Save for revision');
    const box = await save.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await save.click();
    await expect(save).toHaveAttribute('aria-pressed', 'true');
    await expect(save).toHaveAccessibleName('Saved for revision'); // the label says what happened
    await expect(page.locator('[data-save-status]')).toHaveText('Saved. Find it under Saved cards.');
    await page.goto('/saved/');
    await expect(page.locator('[data-saved-list] li:not([hidden])')).toHaveText([/GPU utilization/]);
    await page.goto('/progress/');
    await expect(page.locator('[data-saved-list] li:not([hidden]) a')).toHaveAttribute('href', '/cards/gpu-util/');
    // Unsave: gone from the list.
    await page.goto('/cards/gpu-util/');
    await expect(save).toHaveAttribute('aria-pressed', 'true');
    await save.click();
    await expect(save).toHaveAttribute('aria-pressed', 'false');
    // What the learner reads before leaving: said once the change is stored.
    await expect(page.locator('[data-save-status]')).toHaveText('Removed from your saved cards.');
    await page.goto('/saved/');
    await expect(page.getByText('Nothing saved yet.')).toBeVisible();
  });

  test('the review page serves a due question first, and "Undo last answer" puts it back', async ({ page }) => {
    const bank = await getBank(page);
    const t0 = Date.now();
    await page.clock.setFixedTime(t0);
    const quiz = await openCardQuiz(page, 'gpu-util');
    const [missed] = await answerSeries(quiz, bank, [false]);
    await page.clock.setFixedTime(t0 + 3 * DAY_MS);
    await page.goto('/review/');
    await expect(page.getByTestId('review-counts')).toHaveText(/^Now: 1 learning, then 10 new\.$/);
    const review = page.locator('section.quiz');
    await expect(review.locator('.prompt').first()).toHaveAttribute('id', `q-${missed}-prompt`);
    await answerCurrent(review, bank, true);
    await page.clock.setFixedTime(t0 + 3 * DAY_MS + 60_000);
    await review.getByRole('button', { name: 'Undo last answer' }).click();
    await expect(review.locator('.feedback')).toHaveCount(0);
    await expect(review.locator('.prompt').first()).toHaveAttribute('id', `q-${missed}-prompt`);
    await expect(review.locator('.prompt').first()).toBeFocused();
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('1'); // the undone answer no longer counts
    await page.goto('/review/');
    await expect(page.getByTestId('review-counts')).toHaveText(/^Now: 1 learning/);
  });

  test('"Retake mistakes" asks every question answered wrong and not right since', async ({ page }) => {
    const bank = await getBank(page);
    const quiz = await openCardQuiz(page, 'gpu-util');
    const ids = await answerSeries(quiz, bank, [false, false, true, false]);
    const wrong = [ids[3], ids[1], ids[0]]; // most recent mistake first
    await page.goto('/review/');
    await page.getByRole('button', { name: 'Retake mistakes (3)' }).click();
    const retake = page.locator('section.quiz');
    await expect(retake.getByRole('heading', { name: 'Retake mistakes' })).toBeVisible();
    await expect(retake.locator('.quiz-progress')).toHaveText('Question 1 of 3');
    await expect(retake.locator('.prompt').first()).toHaveAttribute('id', `q-${wrong[0]}-prompt`);
    await answerCurrent(retake, bank, true);
    await retake.getByRole('button', { name: 'Next question' }).click();
    // Kept on the device (not a race with the page being left a few ms after the tap).
    await expect.poll(async () => (await savedQuizzes(page)).find((q) => q.quizId === 'retake')?.index).toBe(1);
    // Opened again, the session in progress goes on where it was (src/store/quiz-saves.ts)…
    await page.goto('/review/?mode=retake');
    await expect(page.locator('section.quiz .quiz-progress')).toHaveText('Question 2 of 3');
    await expect(page.locator('section.quiz .prompt').first()).toHaveAttribute('id', `q-${wrong[1]}-prompt`);
    await answerCurrent(retake, bank, false);
    await retake.getByRole('button', { name: 'Next question' }).click();
    await answerCurrent(retake, bank, true);
    await retake.getByRole('button', { name: 'See results' }).click();
    // …and once it is finished, the next one asks only what is still wrong.
    await page.goto('/review/?mode=retake');
    await expect(page.locator('section.quiz .quiz-progress')).toHaveText('Question 1 of 1');
    await expect(page.locator('section.quiz .prompt').first()).toHaveAttribute('id', `q-${wrong[1]}-prompt`);
  });

  test('without storage, it says progress is not being saved (once as a banner, always on the progress page)', async ({
    page,
  }) => {
    await page.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined }));
    await page.goto('/');
    const note = page.locator('[data-not-saved-note]');
    await expect(note).toBeVisible();
    await expect(note).toContainText("Progress isn't being saved in this browser");
    await expect(note).toContainText(/private browsing or blocked site data/);
    await page.goto('/topics/');
    await expect(page.locator('[data-streak-badge]')).toHaveAttribute('data-streak-ready', ''); // the store answered
    await expect(note).toBeHidden(); // once per session
    const dash = await openProgress(page);
    await expect(dash.getByTestId('not-saved')).toContainText("Progress isn't being saved in this browser");
  });

  test('a card page loads under 35 KB of JavaScript (gzip) before the quiz is in view', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const sizes = new Map<string, number>();
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') sizes.set(r.url(), gzipSync(await r.body()).length);
    });
    await page.goto('/cards/gpu-util/');
    await expect(badge(page)).toHaveAttribute('data-streak-ready', ''); // the store is loaded
    await page.waitForLoadState('networkidle');
    await expect(page.locator('astro-island[ssr]')).toHaveCount(1); // the quiz is not hydrated
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    test.info().annotations.push({ type: 'card-page JS before quiz (gzip bytes)', description: String(total) });
    expect(total).toBeLessThan(35 * 1024);
  });
});

test.describe('progress pages on a phone', () => {
  test.use({ viewport: { width: 320, height: 640 } });
  for (const path of ['/progress/', '/review/', '/saved/']) {
    test(`no horizontal scroll at 320 px: ${path}`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
      const { scroll, client } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(scroll).toBeLessThanOrEqual(client);
    });
  }
});
