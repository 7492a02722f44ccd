/** Helpers for the progress end-to-end tests: answer a quiz right or wrong on purpose, read the bank. */
import { expect, type Locator, type Page } from '@playwright/test';

export interface BankQuestion {
  id: string;
  cardId: string;
  kind: 'single' | 'multiple' | 'numeric';
  options?: { key: string; correct: boolean }[];
  answer?: number;
}

/** The question bank the site serves. */
export async function getBank(page: Page): Promise<BankQuestion[]> {
  return (await (await page.request.get('/bank.json')).json()) as BankQuestion[];
}

/** The bank question now on screen in `quiz` (from its prompt's id, `q-<id>-prompt`). */
export async function currentQuestion(quiz: Locator, bank: BankQuestion[]): Promise<BankQuestion> {
  const promptId = await quiz.locator('.prompt').first().getAttribute('id');
  const q = bank.find((b) => promptId === `q-${b.id}-prompt`);
  if (!q) throw new Error(`no bank question for prompt ${promptId}`);
  return q;
}

/** Answers the question on screen right or wrong on purpose; waits for the feedback. Returns its id. */
export async function answerCurrent(quiz: Locator, bank: BankQuestion[], right: boolean): Promise<string> {
  const q = await currentQuestion(quiz, bank);
  if (q.kind === 'numeric') {
    await quiz.locator('input[inputmode="decimal"]').fill(String(right ? q.answer! : q.answer! * 1000 + 7));
    await quiz.getByRole('button', { name: 'Check' }).click();
  } else {
    const keys = right
      ? q.options!.filter((o) => o.correct).map((o) => o.key)
      : [q.options!.find((o) => !o.correct)!.key];
    for (const k of keys) await quiz.locator(`[data-option="${k}"]`).click();
    if (q.kind === 'multiple') await quiz.getByRole('button', { name: 'Check answer' }).click();
  }
  await expect(quiz.locator('.feedback h3')).toHaveText(right ? /Correct/ : 'Not quite');
  // The screen has moved to the feedback (focus, then a smooth scroll where motion is welcome) before the next tap:
  // a tap while the page still scrolls can press "Next question" and release it elsewhere, which is not a click.
  await expect(quiz.locator('.feedback h3')).toBeFocused();
  return q.id;
}

/** Answers `pattern.length` questions in a row (true = right), pressing "Next question" between. */
export async function answerSeries(quiz: Locator, bank: BankQuestion[], pattern: boolean[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, right] of pattern.entries()) {
    await expect(quiz.locator('.quiz-progress')).toHaveText(new RegExp(`Question ${i + 1} of`));
    ids.push(await answerCurrent(quiz, bank, right));
    await quiz.getByRole('button', { name: /Next question|See results/ }).click();
  }
  return ids;
}

/** Opens a card, scrolls to its quiz (which also marks the card read) and waits for hydration. */
export async function openCardQuiz(page: Page, slug: string): Promise<Locator> {
  await page.goto(`/cards/${slug}/`);
  const quiz = page.locator('section.quiz');
  await quiz.scrollIntoViewIfNeeded();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  // A quiz in progress from an earlier visit is restored after hydration: read the question after that.
  await expect(quiz).toHaveAttribute('data-saved', 'read');
  await expect(quiz.locator('.prompt').first()).toBeVisible();
  return quiz;
}

/** The progress page once its numbers are in. */
export async function openProgress(page: Page): Promise<Locator> {
  await page.goto('/progress/');
  const dash = page.getByTestId('dashboard');
  await expect(dash).toBeVisible();
  return dash;
}

/** The quizzes kept in progress as the page's IndexedDB holds them ("saturate-quiz", src/store/quiz-saves.ts). */
export function savedQuizzes(page: Page): Promise<{ quizId: string; index: number }[]> {
  return page.evaluate(
    () =>
      new Promise<{ quizId: string; index: number }[]>((resolve, reject) => {
        const open = indexedDB.open('saturate-quiz');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('in-progress')) return resolve([]);
          const all = db.transaction('in-progress').objectStore('in-progress').getAll();
          all.onsuccess = () => {
            db.close();
            resolve(
              (all.result as { quizId: string; index: number }[]).map(({ quizId, index }) => ({ quizId, index })),
            );
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}
