/** A finished quiz's start: its last score and a button that starts it over, instead of "Question 1". */
import { lastTimeText, type LastFinished } from '../lib/quiz-last.ts';

export function QuizLast({ last, onAgain }: { last: LastFinished; onAgain: () => void }) {
  return (
    <div className="quiz-last">
      <p className="quiz-last-score" data-testid="quiz-last">
        {lastTimeText(last)}
      </p>
      <div className="actions">
        <button type="button" className="button" onClick={onAgain}>
          Practise again
        </button>
      </div>
    </div>
  );
}
