/** Loads the question bank (`/bank.json`, precached by the service worker) and picks a quiz's questions from it. */
import { useEffect, useState } from 'react';
import type { QuizQuestion } from '../lib/quiz.ts';

export type BankState =
  { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; questions: QuizQuestion[] };

/** `pick` runs once, when the bank has arrived; it may throw (the quiz then shows its message). */
export function useBankQuestions(bankUrl: string, pick: (bank: QuizQuestion[]) => QuizQuestion[]): BankState {
  const [state, setState] = useState<BankState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    fetch(bankUrl)
      .then((r) => {
        if (!r.ok) throw new Error(`the question bank answered ${r.status}`);
        return r.json() as Promise<QuizQuestion[]>;
      })
      .then((bank) => live && setState({ status: 'ready', questions: pick(bank) }))
      .catch(
        (e: Error) =>
          live &&
          setState({
            status: 'error',
            message: `Could not load the questions (${e.message}). Check your connection and reload.`,
          }),
      );
    return () => {
      live = false;
    };
    // A quiz is chosen once per page: `pick` is not meant to change while it is open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [bankUrl]);
  return state;
}
