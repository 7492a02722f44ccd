/** One question: prompt and options (radiogroup or checkbox group) or a number input. */
import type { RefObject } from 'react';
import type { QuizOption, QuizQuestion } from '../lib/quiz.ts';
import type { Answer } from '../lib/quiz-session.ts';
import { optionMark, withoutSelectAll } from '../lib/prompt-text.ts';
import { Prompt } from './Prompt.tsx';

interface Props {
  question: QuizQuestion;
  /** Options in display order. */
  options: QuizOption[];
  answered: Answer | undefined;
  draft: string[];
  numberText: string;
  inputError: string;
  promptRef: RefObject<HTMLDivElement | null>;
  onPick: (key: string) => void;
  onNumberText: (text: string) => void;
  onCheck: () => void;
}

const pickedIn = (o: QuizOption, answered: Answer) =>
  answered.response.kind !== 'numeric' && answered.response.choices.includes(o.key);

/** Class for an option once the question is answered: right options green, wrong picks red. */
function stateClass(o: QuizOption, answered: Answer | undefined): string {
  if (!answered) return 'option';
  return `option${o.correct ? ' is-correct' : pickedIn(o, answered) ? ' is-wrong' : ''}`;
}

/** Once answered, ✓ or ✗ beside the option (not colour alone), with its words for a screen reader. */
function Mark({ option, answered }: { option: QuizOption; answered: Answer | undefined }) {
  const mark = answered && optionMark(option.correct, pickedIn(option, answered));
  if (!mark) return null;
  return (
    <span className="mark">
      <span aria-hidden="true">{mark.symbol}</span>
      <span className="sr-only">, {mark.label}</span>
    </span>
  );
}

export function QuestionView({
  question,
  options,
  answered,
  draft,
  numberText,
  inputError,
  promptRef,
  onPick,
  onNumberText,
  onCheck,
}: Props) {
  const promptId = `q-${question.id}-prompt`;
  const errorId = `q-${question.id}-error`;
  // A multiple-answer prompt's own "Select all that apply." is left to the hint below it, said once.
  const html = question.kind === 'multiple' ? withoutSelectAll(question.promptHtml) : question.promptHtml;
  const prompt = <Prompt html={html} id={promptId} promptRef={promptRef} />;

  if (question.kind === 'numeric') {
    const inputId = `q-${question.id}-value`;
    return (
      <div>
        {prompt}
        <div className="numeric">
          <label htmlFor={inputId} className="sr-only">
            Your answer{question.unit ? ` in ${question.unit}` : ''}
          </label>
          <input
            id={inputId}
            inputMode="decimal"
            autoComplete="off"
            enterKeyHint="done"
            value={numberText}
            disabled={!!answered}
            aria-invalid={inputError ? true : undefined}
            aria-describedby={inputError ? errorId : undefined}
            onChange={(e) => onNumberText(e.target.value)}
          />
          {question.unit && <span>{question.unit}</span>}
          {!answered && (
            <button type="button" className="button" onClick={onCheck}>
              Check
            </button>
          )}
        </div>
        {inputError && (
          <p id={errorId} className="error" role="alert">
            {inputError}
          </p>
        )}
      </div>
    );
  }

  if (question.kind === 'single') {
    const picked = answered && answered.response.kind !== 'numeric' ? answered.response.choices[0] : undefined;
    return (
      <div>
        {prompt}
        <p className="hint">
          Pick one<span className="keys-hint"> (keys 1–{options.length})</span>.
        </p>
        <ul className="options" role="radiogroup" aria-labelledby={promptId}>
          {options.map((o, i) => (
            <li key={o.key} role="none">
              <button
                type="button"
                role="radio"
                aria-checked={picked === o.key}
                aria-disabled={answered ? true : undefined}
                className={stateClass(o, answered)}
                data-option={o.key}
                onClick={() => onPick(o.key)}
              >
                <span className="key" aria-hidden="true">
                  {i + 1}
                </span>
                <span className="text" dangerouslySetInnerHTML={{ __html: o.html }} />
                <Mark option={o} answered={answered} />
              </button>
            </li>
          ))}
        </ul>
      </div>
    );
  }

  const chosen = answered && answered.response.kind !== 'numeric' ? answered.response.choices : draft;
  return (
    <fieldset>
      <legend>{prompt}</legend>
      <p className="hint">
        Select all that apply<span className="keys-hint"> (keys 1–{options.length})</span>, then check.
      </p>
      <ul className="options" role="group" aria-labelledby={promptId}>
        {options.map((o, i) => (
          <li key={o.key} role="none">
            <label className={stateClass(o, answered)} data-option={o.key}>
              <input
                type="checkbox"
                checked={chosen.includes(o.key)}
                disabled={!!answered}
                onChange={() => onPick(o.key)}
              />
              <span className="key" aria-hidden="true">
                {i + 1}
              </span>
              <span className="text" dangerouslySetInnerHTML={{ __html: o.html }} />
              <Mark option={o} answered={answered} />
            </label>
          </li>
        ))}
      </ul>
      {inputError && (
        <p className="error" role="alert">
          {inputError}
        </p>
      )}
      {!answered && (
        <button type="button" className="button" onClick={onCheck}>
          Check answer
        </button>
      )}
    </fieldset>
  );
}
