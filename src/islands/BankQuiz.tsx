/**
 * A curated or role quiz: a fixed list of questions, by id, taken from the question bank that the service worker
 * already holds (`/bank.json`), so the page does not ship its 30 questions a second time as props.
 */
import type { ComponentProps } from 'react';
import Quiz from './Quiz.tsx';
import { QuizStatus } from './QuizStatus.tsx';
import { pickFromBank } from '../lib/practice.ts';
import { useBankQuestions } from './use-bank.ts';

type Props = Omit<ComponentProps<typeof Quiz>, 'questions'> & {
  /** URL of the question bank JSON. */
  bankUrl: string;
  /** The quiz's questions, in order. */
  ids: string[];
};

export default function BankQuiz({ bankUrl, ids, ...quiz }: Props) {
  const state = useBankQuestions(bankUrl, (bank) => pickFromBank(bank, ids));
  if (state.status === 'loading') return <QuizStatus loading={`Loading ${ids.length} questions…`} />;
  if (state.status === 'error') return <QuizStatus error={state.message} />;
  return <Quiz {...quiz} questions={state.questions} />;
}
