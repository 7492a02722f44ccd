/**
 * The quiz's ties to the device: the quiz in progress, kept and restored (src/store/quiz-saves.ts), and
 * its last finished score (src/store/peek.ts), both through src/client/quiz-resume.ts.
 */
import { useEffect, useState } from 'react';
import type { QuizQuestion } from '../lib/quiz.ts';
import type { QuizAction, SavedQuiz } from '../lib/quiz-session.ts';
import type { AnswerDetail } from '../lib/events.ts';
import type { LastFinished } from '../lib/quiz-last.ts';
import { clearQuizSave, lastQuizDoneOf, readQuizSave, saveQuiz } from '../client/quiz-resume.ts';

/** Where a saved quiz is resumed from, and what the home page calls it. */
export interface ResumeInfo {
  /** E.g. "Practice quiz", a curated quiz's title, "Card quiz: What GPU-Util measures". */
  title: string;
  /** A site path without the base: "/practice/random/?seed=abc123", "/cards/gpu-util/#quiz". */
  href: string;
}

const sameIds = (ids: readonly string[], questions: readonly QuizQuestion[]) =>
  ids.length === questions.length && ids.every((id, i) => id === questions[i]!.id);

/**
 * Keeps the quiz in progress on the device (removed while nothing is answered and once it ends)
 * and restores it when the quiz opens, in this tab or another. Nothing is written before the saved
 * state has been read, so opening a quiz never erases its saved progress. True once it has been read.
 */
export function useSavedQuiz(
  quizId: string,
  context: AnswerDetail['context'],
  resume: ResumeInfo,
  questions: readonly QuizQuestion[],
  { attempt, index, answers, startedAt }: SavedQuiz,
  dispatch: (action: QuizAction) => void,
): boolean {
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    let live = true;
    setLoaded(false);
    const done = () => live && setLoaded(true);
    readQuizSave(quizId).then((saved) => {
      if (live && saved && sameIds(saved.questionIds, questions)) dispatch({ type: 'restore', saved });
      done();
    }, done);
    return () => {
      live = false;
    };
  }, [quizId, questions, dispatch]);

  const { title, href } = resume;
  useEffect(() => {
    if (!loaded) return;
    if ((answers.length === 0 && index === 0) || index >= questions.length) void clearQuizSave(quizId);
    else
      void saveQuiz({
        v: 1,
        quizId,
        title,
        href,
        context,
        questionIds: questions.map((q) => q.id),
        attempt,
        index,
        answers,
        startedAt,
        savedAt: Date.now(),
      });
  }, [loaded, quizId, title, href, context, questions, attempt, index, answers, startedAt]);
  return loaded;
}

/** The last finished attempt at `quizId` on this device, once read (null before, when never finished, or off). */
export function useLastFinished(quizId: string, enabled: boolean): LastFinished | null {
  const [last, setLast] = useState<LastFinished | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    lastQuizDoneOf(quizId).then(
      (r) => live && setLast(r),
      () => undefined, // no storage here: the quiz starts as it always did
    );
    return () => {
      live = false;
    };
  }, [quizId, enabled]);
  return last;
}
