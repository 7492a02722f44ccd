/**
 * A practice quiz of 30 questions drawn from the whole bank with the seed in the URL (?seed=...),
 * so the same link gives the same quiz on any device. Without a seed, one is made and put in the URL.
 */
import { useState } from 'react';
import Quiz from './Quiz.tsx';
import { QuizStatus } from './QuizStatus.tsx';
import { drawPractice, PRACTICE_SIZE } from '../lib/practice.ts';
import { newSeed, parseSeed } from '../lib/random.ts';
import { useBankQuestions } from './use-bank.ts';

interface Props {
  /** URL of the question bank JSON. */
  bankUrl: string;
}

/** The seed in the URL, or a new one put there (read once, in the browser). */
function seedFromUrl(): string {
  const url = new URL(window.location.href);
  const seed = parseSeed(url.searchParams.get('seed'));
  if (seed) return seed;
  const made = newSeed();
  url.searchParams.set('seed', made);
  history.replaceState(history.state, '', url);
  return made;
}

export default function PracticeQuiz({ bankUrl }: Props) {
  const [seed] = useState(() => (typeof window === 'undefined' ? '' : seedFromUrl()));
  const state = useBankQuestions(bankUrl, (bank) => drawPractice(bank, seed));

  if (state.status === 'loading') return <QuizStatus loading={`Loading ${PRACTICE_SIZE} questions…`} />;
  if (state.status === 'error') return <QuizStatus error={state.message} />;
  return (
    <>
      <p className="muted">
        Quiz code <strong data-testid="seed">{seed}</strong>: share this page's link to give someone the same{' '}
        {state.questions.length} questions.
      </p>
      <Quiz
        title="Practice quiz"
        quizId={`practice:${seed}`}
        context="practice"
        questions={state.questions}
        seed={seed}
        links={[{ href: '/practice/random/', label: 'New quiz' }]}
        resume={{ title: 'Random practice quiz', href: `/practice/random/?seed=${seed}` }}
      />
    </>
  );
}
