/**
 * A quiz's last finished score, as a card's quiz shows it when opened again ("Last time: 5 of 6"). Pure and small:
 * the card quiz loads it with its own chunk (src/store/quiz-last.ts reads the records).
 */

/** A quiz's last finished attempt, as its start screen shows it. */
export interface LastFinished {
  correct: number;
  total: number;
  at: number;
}

const count = (n: unknown, max: number): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= max;

/**
 * The newest finished attempt at `quizId` among raw log records, each checked as the store's schema checks a
 * 'quiz-done' event (`QuizDoneEventSchema`: whole numbers, at most 10,000, a time in range) and with no more right
 * than asked; a record that fails is skipped. Null when the quiz was never finished.
 */
export function lastFinished(records: Iterable<unknown>, quizId: string): LastFinished | null {
  let newest: LastFinished | null = null;
  for (const r of records) {
    if (typeof r !== 'object' || r === null) continue;
    const e = r as Partial<Record<'type' | 'quizId' | 'correct' | 'total' | 'at', unknown>>;
    if (e.type !== 'quiz-done' || e.quizId !== quizId) continue;
    if (!count(e.total, 10_000) || e.total === 0 || !count(e.correct, e.total)) continue;
    if (!count(e.at, 8.64e15)) continue; // MAX_EPOCH_MS (progress-event.ts, not imported: it brings zod)
    if (!newest || e.at > newest.at) newest = { correct: e.correct, total: e.total, at: e.at };
  }
  return newest;
}

/**
 * "Last time: 5 of 6"
 * @example lastTimeText({ correct: 5, total: 6, at: 0 }) // 'Last time: 5 of 6'
 */
export const lastTimeText = (r: LastFinished): string => `Last time: ${r.correct} of ${r.total}`;
