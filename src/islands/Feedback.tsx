/** After an answer: right or not, and why — for the picked and the correct options first. */
import type { RefObject } from 'react';
import { formatNumber, matchMistake, type QuizQuestion } from '../lib/quiz.ts';
import type { Answer } from '../lib/quiz-session.ts';

interface Props {
  question: QuizQuestion;
  answer: Answer;
  headingRef?: RefObject<HTMLHeadingElement | null>;
}

const Html = ({ html, className }: { html: string; className?: string }) => (
  <div className={className} dangerouslySetInnerHTML={{ __html: html }} />
);

export function Feedback({ question, answer, headingRef }: Props) {
  const ok = answer.correct;
  const heading = (
    <h3 ref={headingRef} tabIndex={-1}>
      {ok ? 'Correct' : 'Not quite'}
    </h3>
  );

  if (question.kind === 'numeric') {
    const value = answer.response.kind === 'numeric' ? answer.response.value : NaN;
    const mistake = ok ? undefined : matchMistake(question, value);
    return (
      <div className={`feedback ${ok ? 'ok' : 'bad'}`}>
        {heading}
        <p>
          <span className="label">Your answer:</span> {formatNumber(value)} {question.unit} ·{' '}
          <span className="label">Answer:</span> {formatNumber(question.answer)} {question.unit} (±{' '}
          {formatNumber(question.tolerance)})
        </p>
        {mistake && <Html className="why" html={mistake.whyHtml} />}
        <Html className="why" html={question.explanationHtml} />
      </div>
    );
  }

  const picked = answer.response.kind !== 'numeric' ? answer.response.choices : [];
  const first = question.options.filter((o) => picked.includes(o.key) || o.correct);
  const rest = question.options.filter((o) => !first.includes(o));
  const label = (correct: boolean, isPicked: boolean) =>
    `${isPicked ? 'You picked' : correct ? 'The answer' : 'Option'}${correct ? ' (correct)' : isPicked ? ' (wrong)' : ''}: `;
  return (
    <div className={`feedback ${ok ? 'ok' : 'bad'}`}>
      {heading}
      {first.map((o) => (
        <div key={o.key} className="why" data-why={o.key}>
          <p>
            <span className="label">{label(o.correct, picked.includes(o.key))}</span>
            <span dangerouslySetInnerHTML={{ __html: o.html }} />
          </p>
          <Html html={o.whyHtml} />
        </div>
      ))}
      {rest.length > 0 && (
        <details>
          <summary>Why the other options are wrong</summary>
          {rest.map((o) => (
            <div key={o.key} className="why">
              <p>
                <span className="label">Option: </span>
                <span dangerouslySetInnerHTML={{ __html: o.html }} />
              </p>
              <Html html={o.whyHtml} />
            </div>
          ))}
        </details>
      )}
    </div>
  );
}
