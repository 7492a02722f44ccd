/**
 * The quiz: one question at a time, immediate feedback with the explanation of the picked and the
 * correct option, a summary with every mistake. Used for a card's "Test yourself" (questions as
 * props, hydrated client:visible) and for practice quizzes (bank fetched, drawn with a seed).
 *
 * Keyboard: 1–9 pick (single) or toggle (multiple), Enter checks or continues. Picking a single
 * choice submits it, so arrow keys only move focus between options (they do not pick, unlike a
 * form radio group) — a learner exploring options with arrows never answers by accident.
 * Screen readers: options are a radiogroup or a group of checkboxes named by the prompt; after an
 * answer, focus moves to the feedback heading and a polite live region announces the result.
 * A quiz in progress is kept on the device (src/store/quiz-saves.ts through src/client/quiz-resume.ts),
 * so a reload, a new tab or a closed app loses nothing; it is removed when the quiz ends. A card's quiz
 * finished before opens at its last score ("Last time: 5 of 6") with "Practise again".
 */
import {
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import { shuffledOptions, type QuizQuestion, type QuizResponse } from '../lib/quiz.ts';
import { answerOf, checkInput, quizReducer, quizScore, startQuiz, topicBreakdown } from '../lib/quiz-session.ts';
import { emit, type AnswerDetail } from '../lib/events.ts';
import { QuestionView } from './QuestionView.tsx';
import { Feedback } from './Feedback.tsx';
import { QuizLast } from './QuizLast.tsx';
import { useLastFinished, useSavedQuiz, type ResumeInfo } from './use-saved-quiz.ts';

// The results are their own chunk: a quiz's first question does not wait for them.
const Summary = lazy(() => import('./Summary.tsx').then((m) => ({ default: m.Summary })));

export interface QuizProps {
  /** Heading shown above the quiz. */
  title: string;
  /** Stable id for saved state and events: a card id, "practice:<seed>", a curated quiz id. */
  quizId: string;
  /** Where answers count. */
  context: AnswerDetail['context'];
  questions: QuizQuestion[];
  /** Seed for option order; attempt number is appended so a retake reshuffles. */
  seed: string;
  /** Extra actions in the summary (e.g. "New quiz" links). */
  links?: { href: string; label: string }[];
  /** Offer "Undo last answer" (the review page): the answer stops counting and its question is asked again. */
  allowUndo?: boolean;
  /** How the home page offers this quiz while it is in progress. */
  resume: ResumeInfo;
}

export default function Quiz({
  title,
  quizId,
  context,
  questions,
  seed,
  links = [],
  allowUndo = false,
  resume,
}: QuizProps) {
  const [state, dispatch] = useReducer(quizReducer, undefined, () => startQuiz(Date.now()));
  const { attempt, index, answers, draft, numberText, inputError, announce } = state;
  const feedbackRef = useRef<HTMLHeadingElement>(null);
  const promptRef = useRef<HTMLDivElement>(null);
  const moved = useRef(false);

  const total = questions.length;
  const done = index >= total;
  const question = questions[Math.min(index, total - 1)];
  const answer = question ? answers.find((a) => a.questionId === question.id) : undefined;
  const attemptSeed = `${seed}:${attempt}`;
  const options = useMemo(
    () => (question && question.kind !== 'numeric' ? shuffledOptions(question, attemptSeed) : []),
    [question, attemptSeed],
  );

  const loaded = useSavedQuiz(quizId, context, resume, questions, state, dispatch);
  const last = useLastFinished(quizId, context === 'card');
  const [again, setAgain] = useState(false);
  const showLast = last && loaded && !again && index === 0 && answers.length === 0 ? last : null;

  // Focus: to the feedback after answering, to the next prompt after continuing. The feedback and the
  // "Next question" under it are scrolled into view together, or from the feedback's heading when they
  // are taller than the screen (the button then sticks to the bottom edge: quiz.css): focus alone scrolls
  // only the heading into view, flush with the bottom edge. The scroll is smooth only where motion is
  // welcome (global.css sets scroll-behavior under prefers-reduced-motion: no-preference).
  useEffect(() => {
    if (!moved.current) return;
    const heading = feedbackRef.current;
    if (answer && heading) {
      heading.focus({ preventScroll: true });
      (heading.closest('.after-answer') ?? heading.parentElement)?.scrollIntoView({ block: 'nearest' });
    } else if (!answer) promptRef.current?.focus();
  }, [answer, index, again]);

  const submit = useCallback(
    (response: QuizResponse) => {
      if (!question || answer) return;
      const at = Date.now();
      const { correct, timeMs } = answerOf(question, response, state.shownAt, at);
      moved.current = true;
      dispatch({ type: 'answer', question, response, at });
      emit('saturate:answer', {
        questionId: question.id,
        cardId: question.cardId,
        topic: question.topic,
        choice: response.kind === 'numeric' ? response.value : response.choices,
        correct,
        timeMs,
        context,
        at,
      });
    },
    [question, answer, context, state.shownAt],
  );

  const next = useCallback(() => {
    moved.current = true;
    dispatch({ type: 'next', at: Date.now() });
    if (index + 1 >= total)
      emit('saturate:quiz-done', {
        context,
        quizId,
        total,
        ...quizScore(answers),
        topics: topicBreakdown(questions, answers),
        at: Date.now(),
      });
  }, [index, total, answers, context, quizId, questions]);

  const undo = useCallback(() => {
    const last = answers.at(-1);
    if (!last) return;
    moved.current = true;
    dispatch({ type: 'undo', questionIds: questions.map((q) => q.id), at: Date.now() });
    emit('saturate:answer-undone', { questionId: last.questionId, answeredAt: last.at ?? 0, at: Date.now() });
  }, [answers, questions]);

  const checkDraft = useCallback(() => {
    if (!question) return;
    const checked = checkInput(question, { draft, numberText });
    if (checked && 'error' in checked) dispatch({ type: 'refuse', error: checked.error });
    else if (checked) submit(checked.response);
  }, [question, numberText, draft, submit]);

  const pick = useCallback(
    (key: string) => {
      if (!question || answer) return;
      if (question.kind === 'single') submit({ kind: 'single', choices: [key] });
      else dispatch({ type: 'toggle', key });
    },
    [question, answer, submit],
  );

  const restart = useCallback(() => {
    moved.current = true;
    setAgain(true);
    dispatch({ type: 'restart', at: Date.now() });
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey || done || showLast || !question) return;
    const target = e.target as HTMLElement;
    const typing = target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'checkbox';
    if (!typing && /^[1-9]$/.test(e.key) && question.kind !== 'numeric' && !answer) {
      const opt = options[Number(e.key) - 1];
      if (opt) {
        e.preventDefault();
        pick(opt.key);
      }
    } else if (e.key === 'Enter' && target.tagName !== 'BUTTON' && target.tagName !== 'A') {
      e.preventDefault();
      if (answer) next();
      else checkDraft();
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && target.getAttribute('role') === 'radio') {
      e.preventDefault();
      const radios = Array.from(
        target.parentElement?.parentElement?.querySelectorAll<HTMLElement>('[role="radio"]') ?? [],
      );
      const i = radios.indexOf(target);
      radios[(i + (e.key === 'ArrowDown' ? 1 : radios.length - 1)) % radios.length]?.focus();
    }
  };

  if (total === 0)
    return (
      <section className="quiz">
        <p>No questions yet.</p>
      </section>
    );

  return (
    // data-saved: "read" once the quiz in progress kept on this device has been looked for (and restored, if any).
    <section className="quiz" aria-label={title} onKeyDown={onKeyDown} data-saved={loaded ? 'read' : 'reading'}>
      <div className="quiz-head">
        <h2>{title}</h2>
        <span className="quiz-progress">
          {showLast ? `${total} questions` : done ? `${total} of ${total}` : `Question ${index + 1} of ${total}`}
        </span>
      </div>
      <div className="quiz-bar" aria-hidden="true">
        <span style={{ width: `${(Math.min(answers.length, total) / total) * 100}%` }} />
      </div>
      <p className="sr-only" aria-live="polite" role="status">
        {announce}
      </p>
      {showLast ? (
        <QuizLast last={showLast} onAgain={restart} />
      ) : done ? (
        <Suspense fallback={<p className="muted">Adding up your results…</p>}>
          <Summary
            questions={questions}
            answers={answers}
            durationMs={quizScore(answers).durationMs}
            onRetake={restart}
            links={links}
            context={context}
          />
        </Suspense>
      ) : question ? (
        <>
          <QuestionView
            key={`${attempt}:${question.id}`}
            question={question}
            options={options}
            answered={answer}
            draft={draft}
            numberText={numberText}
            inputError={inputError}
            promptRef={promptRef}
            onPick={pick}
            onNumberText={(text) => dispatch({ type: 'type', text })}
            onCheck={checkDraft}
          />
          <div className="after-answer">
            {answer && <Feedback question={question} answer={answer} headingRef={feedbackRef} />}
            {(answer || (allowUndo && answers.length > 0)) && (
              <div className="actions">
                {answer && (
                  <button type="button" className="button" onClick={next}>
                    {index + 1 < total ? 'Next question' : 'See results'}
                  </button>
                )}
                {allowUndo && answers.length > 0 && (
                  <button type="button" className="button secondary" onClick={undo}>
                    Undo last answer
                  </button>
                )}
              </div>
            )}
          </div>
        </>
      ) : null}
    </section>
  );
}
