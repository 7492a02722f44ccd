/** End of a quiz: score, time, and a review of every mistake with its explanation. */
import { useEffect, useRef } from 'react';
import type { QuizQuestion } from '../lib/quiz.ts';
import type { Answer } from '../lib/quiz-session.ts';
import { Feedback } from './Feedback.tsx';
import { withBase } from '../lib/base-path.ts';

interface Props {
  questions: QuizQuestion[];
  answers: Answer[];
  durationMs: number;
  onRetake: () => void;
  links: { href: string; label: string }[];
}

/** "4:05" from milliseconds. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function Summary({ questions, answers, durationMs, onRetake, links }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const correct = answers.filter((a) => a.correct).length;
  const wrong = questions.filter((q) => answers.find((a) => a.questionId === q.id && !a.correct));
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
      {wrong.length > 0 ? (
        <>
          <h3>Review your mistakes ({wrong.length})</h3>
          <ol className="mistakes" data-testid="mistakes">
            {wrong.map((q) => (
              <li key={q.id}>
                <div dangerouslySetInnerHTML={{ __html: q.promptHtml }} />
                <Feedback question={q} answer={answers.find((a) => a.questionId === q.id)!} />
                <p className="muted">
                  From <a href={withBase(`/cards/${q.cardId}/`)}>{q.cardTitle}</a> · source:{' '}
                  <a href={q.source.url}>{q.source.title}</a>
                </p>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p>No mistakes. Well done.</p>
      )}
      <div className="actions">
        <button type="button" className="button" onClick={onRetake}>
          Retake
        </button>
        {links.map((l) => (
          <a key={l.href} className="button secondary" href={withBase(l.href)}>
            {l.label}
          </a>
        ))}
      </div>
    </div>
  );
}
