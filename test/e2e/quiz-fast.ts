/**
 * Answers many questions quickly, for tests about what comes after them (results, history): the same
 * clicks a learner makes on the quiz's own options and buttons, dispatched in the page in one go
 * instead of one Playwright round trip each (30 questions: ~2 s instead of ~40 s on the CI machine).
 * The per-question behaviour itself is tested step by step in quiz.spec.ts and progress.spec.ts.
 */
import { expect, type Locator } from '@playwright/test';
import type { BankQuestion } from './progress-helpers.ts';

/** Answers the quiz's next `pattern.length` questions (true = right), pressing Next / See results after each. */
export async function answerQuickly(quiz: Locator, bank: BankQuestion[], pattern: boolean[]): Promise<void> {
  await expect(quiz.locator('.prompt').first()).toBeVisible();
  await quiz.evaluate(
    async (root, { bank, pattern }) => {
      const tick = () => new Promise((r) => setTimeout(r, 0));
      const button = (name: RegExp) =>
        [...root.querySelectorAll<HTMLButtonElement>('button')].find((b) => name.test(b.textContent ?? ''));
      for (const right of pattern) {
        const id = root.querySelector('.prompt')?.id.replace(/^q-(.*)-prompt$/, '$1');
        const q = bank.find((b) => b.id === id);
        if (!q) throw new Error(`no bank question for prompt ${id}`);
        if (q.kind === 'numeric') {
          const input = root.querySelector<HTMLInputElement>('input[inputmode="decimal"]')!;
          const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
          set.call(input, String(right ? q.answer! : q.answer! * 1000 + 7));
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await tick();
          button(/^Check$/)!.click();
        } else {
          const keys = right
            ? q.options!.filter((o) => o.correct).map((o) => o.key)
            : [q.options!.find((o) => !o.correct)!.key];
          for (const k of keys) {
            root.querySelector<HTMLElement>(`[data-option="${k}"]`)!.click();
            await tick();
          }
          if (q.kind === 'multiple') button(/^Check answer$/)!.click();
        }
        await tick();
        const feedback = root.querySelector('.feedback h3')?.textContent ?? '';
        if (right !== /Correct/.test(feedback)) throw new Error(`question ${id}: expected ${right}, saw "${feedback}"`);
        button(/^(Next question|See results)$/)!.click();
        await tick();
      }
    },
    { bank, pattern },
  );
}
