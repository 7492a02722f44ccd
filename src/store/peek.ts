/**
 * Read-only looks at the progress database for pages that do not load the full store (card pages,
 * practice quizzes, labs): whether it holds anything (the header badge on a first visit) and whether
 * one card is saved (its save button). No zod, no log validation: what they return only sets the
 * initial state of a badge or a button; the full store decides what counts. Both give up after
 * `timeoutMs` (the caller then loads the full store or shows nothing).
 */
import { withTimeout } from '../lib/timeout.ts';
import { countRecords, defaultStore, readAllPairs, type UseStore } from './kv.ts';

const noAnswer = () => new Error('storage did not answer');

/** True when the database holds no record at all (a first visit): the streak is then plainly 0. */
export async function storeIsEmpty(store: UseStore = defaultStore(), timeoutMs = 5000): Promise<boolean> {
  return (await withTimeout(countRecords(store), timeoutMs, noAnswer)) === 0;
}

/**
 * Whether `cardId` is saved, from its newest `saved` record (single keys `e:` and chunks `c:`), read
 * without validation.
 */
export async function savedStateOf(
  cardId: string,
  store: UseStore = defaultStore(),
  timeoutMs = 5000,
): Promise<boolean> {
  let newest: { at: number; id: string; saved: unknown } | undefined;
  const look = (e: { type?: unknown; cardId?: unknown; at: number; id: string; saved: unknown } | null) => {
    if (
      e?.type === 'saved' &&
      e.cardId === cardId &&
      (!newest || e.at > newest.at || (e.at === newest.at && e.id > newest.id))
    )
      newest = e;
  };
  for (const [key, value] of await withTimeout(readAllPairs(store), timeoutMs, noAnswer)) {
    if (key.startsWith('e:')) look(value as never);
    else if (key.startsWith('c:') && Array.isArray(value)) value.forEach(look);
  }
  return newest?.saved === true;
}
