/**
 * Issue #20 in a real Chromium: late answers with a fixed clock, no IndexedDB for a whole tab, and
 * two tabs compacting the same seeded records. Runs over the built site like progress.spec.ts.
 */
import { test, expect, type Page } from '@playwright/test';
import { answerCurrent, answerSeries, getBank, openCardQuiz, openProgress } from './progress-helpers.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Every [key, value] in the progress database, read in the page. */
function rawRecords(page: Page): Promise<[string, unknown][]> {
  return page.evaluate(
    () =>
      new Promise<[string, unknown][]>((resolve, reject) => {
        const open = indexedDB.open('saturate');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const s = open.result.transaction('progress').objectStore('progress');
          const keys = s.getAllKeys();
          const values = s.getAll();
          s.transaction.oncomplete = () => {
            open.result.close();
            resolve(keys.result.map((k, i) => [String(k), values.result[i]]));
          };
        };
      }),
  );
}

test.describe('progress is never lost', () => {
  test('an answer 25 h after the question appeared, and one after the clock went back, both count', async ({
    page,
  }) => {
    const bank = await getBank(page);
    const t0 = Date.parse('2026-03-02T09:00:00Z');
    await page.clock.setFixedTime(t0);
    const quiz = await openCardQuiz(page, 'gpu-util');
    const [missed] = await answerSeries(quiz, bank, [false]);
    // Three days on, the review page shows the missed question; the phone is left on it for 25 h.
    await page.clock.setFixedTime(t0 + 3 * DAY_MS);
    await page.goto('/review/');
    const review = page.locator('section.quiz');
    await expect(review.locator('.prompt').first()).toHaveAttribute('id', `q-${missed}-prompt`);
    await page.clock.setFixedTime(t0 + 3 * DAY_MS + 25 * HOUR_MS);
    await answerCurrent(review, bank, true);
    await expect(page.locator('[data-not-saved-note]')).toBeHidden();
    const clamped = async () =>
      (await rawRecords(page)).map(([, v]) => v as Record<string, unknown>).find((r) => r['timeClamped']);
    await expect
      .poll(clamped)
      .toMatchObject({ questionId: missed, timeMs: DAY_MS, timeClamped: true, context: 'review' });

    // "Undo last answer" removes exactly that late answer; the one from 3 days before still counts.
    await review.getByRole('button', { name: 'Undo last answer' }).click();
    await expect(review.locator('.feedback')).toHaveCount(0);
    let dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('1');
    await expect(dash.getByTestId('total-accuracy')).toHaveText('0%');

    // The clock goes back 4 minutes while a card's question is on screen.
    const t1 = t0 + 6 * DAY_MS;
    await page.clock.setFixedTime(t1);
    const card = await openCardQuiz(page, 'gpu-util');
    await page.clock.setFixedTime(t1 - 4 * 60_000);
    await answerCurrent(card, bank, true);
    dash = await openProgress(page); // the next load reads it back: counted, not set aside as damaged
    await expect(dash.getByTestId('total-answers')).toHaveText('2');
    await expect(dash.getByTestId('quarantined')).toHaveCount(0);
  });

  test('without IndexedDB, answers on a card page are on /progress/ in the same tab, and export', async ({ page }) => {
    await page.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined }));
    const bank = await getBank(page);
    const quiz = await openCardQuiz(page, 'gpu-util');
    await answerSeries(quiz, bank, [true, false, true]);
    await expect(page.locator('[data-not-saved-note]')).toContainText(/only until you close this tab/);
    const dash = await openProgress(page);
    await expect(dash.getByTestId('total-answers')).toHaveText('3');
    const download = page.waitForEvent('download');
    await dash
      .getByRole('button', { name: /Export/ })
      .first()
      .click();
    const text = await (await (await download).createReadStream()).toArray();
    expect(JSON.parse(Buffer.concat(text).toString('utf8')).events).toHaveLength(4); // 3 answers + the card read
  });

  test('two tabs compacting the same 600 seeded records keep every one', async ({ context }) => {
    const [a, b] = [await context.newPage(), await context.newPage()];
    await a.goto('/about/');
    await a.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('saturate');
        open.onupgradeneeded = () => open.result.createObjectStore('progress');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const s = db.transaction('progress', 'readwrite').objectStore('progress');
      s.put({ schemaVersion: 2 }, 'meta');
      const start = Date.parse('2026-01-05T08:00:00Z');
      for (let i = 0; i < 600; i++) {
        const at = start + i * 600_000;
        const id = `${at}-s${i.toString(36).padStart(5, '0')}`;
        const e = {
          id,
          at,
          tz: 'UTC',
          offsetMin: 0,
          type: 'answer',
          questionId: `q${i % 40}`,
          cardId: 'meters/gpu-util',
        };
        s.put({ ...e, topic: 'meters', choice: ['a'], correct: i % 3 > 0, timeMs: 5_000, context: 'card' }, `e:${id}`);
      }
      await new Promise((r) => (s.transaction.oncomplete = r));
      db.close();
    });
    // Both tabs open the store at once; each reads 600 singles and compacts them.
    const [da, db] = await Promise.all([openProgress(a), openProgress(b)]);
    await expect(da.getByTestId('total-answers')).toHaveText('600');
    await expect(db.getByTestId('total-answers')).toHaveText('600');
    await expect.poll(async () => (await rawRecords(a)).filter(([k]) => k.startsWith('e:')).length).toBe(0);
    const keys = (await rawRecords(a)).map(([k]) => k);
    expect(keys.filter((k) => k.startsWith('c:')).length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.startsWith('q:'))).toEqual([]);
    const again = await openProgress(a);
    await expect(again.getByTestId('total-answers')).toHaveText('600');
  });

  test('while the store is slow to answer, /progress/ says it is still loading, then shows everything', async ({
    page,
  }) => {
    await page.clock.install();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await page.route('**/_astro/listen.*.js', async (route) => {
      await gate; // the full store's chunk (and so its open) waits, as on a slow device
      await route.continue();
    });
    await page.goto('/progress/');
    const loading = page.getByTestId('loading');
    await expect(loading).toHaveText('Loading your progress…');
    await expect(page.locator('astro-island[ssr]')).toHaveCount(0); // hydrated: its timer runs
    await page.clock.runFor(5_000);
    await expect(loading).toHaveText(/^Still loading your progress.*Nothing is lost\.$/);
    await expect(page.locator('[data-not-saved-note]')).toBeHidden();
    release();
    await expect(page.getByTestId('dashboard')).toBeVisible();
    await expect(page.getByTestId('not-saved')).toHaveCount(0);
  });
});
