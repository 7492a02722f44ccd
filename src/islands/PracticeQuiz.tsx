/**
 * A practice quiz of 30 questions drawn from the whole bank with the seed in the URL (?seed=...),
 * so the same link gives the same quiz on any device. Without a seed, one is made and put in the URL.
 */
import { useEffect, useState } from 'react';
import Quiz from './Quiz.tsx';
import { QuizStatus } from './QuizStatus.tsx';
import { drawPractice, PRACTICE_SIZE } from '../lib/practice.ts';
import { newSeed, parseSeed } from '../lib/random.ts';
import type { QuizQuestion } from '../lib/quiz.ts';

interface Props {
  /** URL of the question bank JSON. */
  bankUrl: string;
}

type State =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ready'; seed: string; questions: QuizQuestion[] };

export default function PracticeQuiz({ bankUrl }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });

  useEffect(() => {
    const url = new URL(window.location.href);
    let seed = parseSeed(url.searchParams.get('seed'));
    if (!seed) {
      seed = newSeed();
      url.searchParams.set('seed', seed);
      history.replaceState(history.state, '', url);
    }
    const chosen = seed;
    fetch(bankUrl)
      .then((r) => {
        if (!r.ok) throw new Error(`the question bank answered ${r.status}`);
        return r.json() as Promise<QuizQuestion[]>;
      })
      .then((bank) => setState({ status: 'ready', seed: chosen, questions: drawPractice(bank, chosen) }))
      .catch((e: Error) =>
        setState({
          status: 'error',
          message: `Could not load the questions (${e.message}). Check your connection and reload.`,
        }),
      );
  }, [bankUrl]);

  if (state.status === 'loading') return <QuizStatus loading={`Loading ${PRACTICE_SIZE} questions…`} />;
  if (state.status === 'error') return <QuizStatus error={state.message} />;
  return (
    <>
      <p className="muted">
        Quiz code <strong data-testid="seed">{state.seed}</strong>: share this page's link to give someone the same{' '}
        {state.questions.length} questions.
      </p>
      <Quiz
        title="Practice quiz"
        quizId={`practice:${state.seed}`}
        context="practice"
        questions={state.questions}
        seed={state.seed}
        links={[{ href: '/practice/random/', label: 'New quiz' }]}
        resume={{ title: 'Random practice quiz', href: `/practice/random/?seed=${state.seed}` }}
      />
    </>
  );
}
