/**
 * The page's write path, loaded by src/client/progress-handoff.ts on the learner's first move or first
 * app event (not with the page): the light writer (src/store/append.ts) and the queue over it
 * (src/client/progress-queue.ts), which hands over to the full store when a page asks for it.
 */
import { createAppendWriter } from '../store/append.ts';
import { createProgressQueue, type ProgressQueueOptions, type ProgressQueue } from './progress-queue.ts';

/** The page's queue over the default database (started by the handoff). */
export function pageQueue(
  loadStore: ProgressQueueOptions['loadStore'],
  page: NonNullable<ProgressQueueOptions['page']>,
): ProgressQueue {
  return createProgressQueue({ writer: createAppendWriter(), loadStore, page });
}
