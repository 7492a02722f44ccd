/**
 * A quiz's last finished score from the progress log, for a card's quiz without the full store (loaded with the
 * quiz, not on every page: src/store/peek.ts is). Records are checked field by field (src/lib/quiz-last.ts).
 */
import { withTimeout } from '../lib/timeout.ts';
import { lastFinished, type LastFinished } from '../lib/quiz-last.ts';
import { defaultStore, readAllPairs, type UseStore } from './kv.ts';

const noAnswer = () => new Error('storage did not answer');

/**
 * The newest finished attempt at `quizId` ('quiz-done' records, single keys `e:` and chunks `c:`), each record
 * checked before it counts (src/lib/practice-history.ts `lastFinished`); null when never finished. A card's quiz
 * shows it instead of its first question, without loading the full store.
 */
export async function lastQuizDoneOf(
  quizId: string,
  store: UseStore = defaultStore(),
  timeoutMs = 5000,
): Promise<LastFinished | null> {
  const records: unknown[] = [];
  for (const [key, value] of await withTimeout(readAllPairs(store), timeoutMs, noAnswer)) {
    if (key.startsWith('e:')) records.push(value);
    else if (key.startsWith('c:') && Array.isArray(value)) records.push(...(value as unknown[]));
  }
  return lastFinished(records, quizId);
}
