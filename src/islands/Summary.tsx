/**
 * End of a quiz, summary first: score, time, the score by topic and where the mistakes went in the
 * review schedule ("3 mistakes added to your review queue as learning: the first back today at 18:05, …",
 * read from the store's FSRS schedule once the answers are recorded; the words are src/lib/review-counts.ts's,
 * as on Review and Home); the actions (Retake, New quiz, Review) above and below; then every question with its
 * explanation, each collapsed in a <details>, a mistake saying when it is back in review.
 * Loaded by the Quiz only when a quiz ends (its own chunk).
 */
import { useEffect, useRef, useState } from 'react';
import type { QuizQuestion } from '../lib/quiz.ts';
import type { Answer } from '../lib/quiz-session.ts';
import type { AnswerDetail } from '../lib/events.ts';
import { formatDuration, mistakesScheduled, reviewWhen, topicBreakdown } from '../lib/quiz-results.ts';
import { mistakesSentence } from '../lib/review-counts.ts';
import { progressStore } from '../client/progress-boot.ts';
import { TOPICS } from '../schemas/topics.ts';
import { Feedback } from './Feedback.tsx';
import { Prompt } from './Prompt.tsx';
import { promptParts } from '../lib/prompt-lead.ts';
import { withBase } from '../lib/base-path.ts';

interface Props {
  questions: QuizQuestion[];
  answers: Answer[];
  durationMs: number;
  onRetake: () => void;
  links: { href: string; label: string }[];
  context: AnswerDetail['context'];
}

const topicTitle = (id: string) => TOPICS.find((t) => t.id === id)?.title ?? id;

/** Where the mistakes went: the results' line and when each is back, once the store has scheduled them; '' before. */
function useReviewNote(wrong: readonly Answer[]): { note: string; back: Map<string, string> } {
  const [note, setNote] = useState({ note: '', back: new Map<string, string>() });
  useEffect(() => {
    if (wrong.length === 0) return;
    let stop: (() => void) | null = null;
    let live = true;
    progressStore().then(
      (p) => {
        if (!live) return;
        stop = p.watchProgress((s) => {
          const r = mistakesScheduled(s.schedule.questions, wrong);
          if (r.status !== 'scheduled') return;
          const now = Date.now();
          const when = (ms: number) => reviewWhen(ms, now, navigator.language);
          setNote({
            note: mistakesSentence(r.count, when(r.nextReviewMs), when(r.lastReviewMs)),
            back: new Map([...r.backMs].map(([id, ms]) => [id, when(ms)])),
          });
        });
      },
      () => undefined, // the store's chunk did not load (offline, not cached): say nothing rather than guess
    );
    return () => {
      live = false;
      stop?.();
    };
  }, [wrong]);
  return note;
}

function Actions({ onRetake, links, review }: Pick<Props, 'onRetake' | 'links'> & { review: boolean }) {
  return (
    <div className="actions">
      <button type="button" className="button" onClick={onRetake}>
        Retake
      </button>
      {links.map((l) => (
        <a key={l.href} className="button secondary" href={withBase(l.href)}>
          {l.label}
        </a>
      ))}
      {review && (
        <a className="button secondary" href={withBase('/review/')}>
          Review
        </a>
      )}
    </div>
  );
}

/**
 * One question, collapsed: its first line in the list (inline code kept), and when opened the rest of its
 * prompt as the quiz showed it (a scenario's table preformatted, once), then the feedback.
 */
function Explained({ question, answer, back }: { question: QuizQuestion; answer: Answer; back?: string | undefined }) {
  const { leadHtml, restHtml } = promptParts(question.promptHtml, question.scenario);
  return (
    <li>
      <details>
        <summary>
          <span className="sr-only">{answer.correct ? 'Right: ' : 'Wrong: '}</span>
          <span dangerouslySetInnerHTML={{ __html: leadHtml }} />
        </summary>
        {restHtml && <Prompt html={restHtml} />}
        <Feedback question={question} answer={answer} />
        {back && <p data-testid="back-in-review">Back in review {back} (learning).</p>}
        <p className="muted">
          From <a href={withBase(`/cards/${question.cardId}/`)}>{question.cardTitle}</a> · source:{' '}
          <a href={question.source.url}>{question.source.title}</a>
        </p>
      </details>
    </li>
  );
}

export function Summary({ questions, answers, durationMs, onRetake, links, context }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Summary first: its top goes to the top of the screen, so the score and the actions are in view (focus alone
  // scrolls only the heading in, flush with the bottom edge when the quiz was above it).
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    heading.current?.scrollIntoView({ block: 'start' });
  }, []);
  const answerTo = new Map(answers.map((a) => [a.questionId, a]));
  const correct = answers.filter((a) => a.correct).length;
  const asked = questions.filter((q) => answerTo.has(q.id));
  const wrong = asked.filter((q) => !answerTo.get(q.id)!.correct);
  const right = asked.filter((q) => answerTo.get(q.id)!.correct);
  const [wrongAnswers] = useState(() => answers.filter((a) => !a.correct));
  const { note, back } = useReviewNote(wrongAnswers);
  const topics = topicBreakdown(questions, answers);
  const actions = <Actions onRetake={onRetake} links={links} review={context !== 'review' && context !== 'retake'} />;
  return (
    <div className="summary">
      <h3 ref={heading} tabIndex={-1}>
        Results
      </h3>
      <p className="score" data-testid="score">
        {correct} / {questions.length}
      </p>
      <p className="muted">
        Time: <span data-testid="time">{formatDuration(durationMs)}</span> ·{' '}
        {Math.round((correct / Math.max(1, questions.length)) * 100)}% right
      </p>
      <p data-testid="review-note" aria-live="polite">
        {wrong.length === 0 ? 'No mistakes. Well done.' : note}
      </p>
      {actions}
      {topics.length > 1 && (
        <>
          <h4>By topic</h4>
          <ul className="by-topic" data-testid="by-topic">
            {topics.map((t) => (
              <li key={t.topic}>
                <span>{topicTitle(t.topic)}</span>{' '}
                <span className="muted">
                  {t.correct} / {t.total}
                </span>
                <meter min={0} max={t.total} value={t.correct} aria-hidden="true" />
              </li>
            ))}
          </ul>
        </>
      )}
      {wrong.length > 0 && (
        <>
          <h4>Your mistakes ({wrong.length})</h4>
          <ol className="mistakes" data-testid="mistakes">
            {wrong.map((q) => (
              <Explained key={q.id} question={q} answer={answerTo.get(q.id)!} back={back.get(q.id)} />
            ))}
          </ol>
        </>
      )}
      {right.length > 0 && (
        <>
          <h4>Right answers ({right.length})</h4>
          <ol className="mistakes" data-testid="right-answers">
            {right.map((q) => (
              <Explained key={q.id} question={q} answer={answerTo.get(q.id)!} />
            ))}
          </ol>
        </>
      )}
      {actions}
    </div>
  );
}
