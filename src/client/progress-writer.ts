/**
 * The page's write path, loaded by src/client/progress-handoff.ts on the learner's first move or first
 * app event (not with the page): the light writer (src/store/append.ts) and the queue over it
 * (src/client/progress-queue.ts), which hands over to the full store when a page asks for it. On a device signed in
 * to sync it also starts the sync triggers (below): not in the every-page chunk, where a card page has at most
 * 10 KB of JavaScript before its figures or quiz are visible (test/e2e/figures.spec.ts) and had 17 B to spare.
 */
import { createAppendWriter } from '../store/append.ts';
import { pageLedger } from '../store/unwritten.ts';
import { createProgressQueue, type ProgressQueueOptions, type ProgressQueue } from './progress-queue.ts';

/** The page's queue over the default database (started by the handoff). */
export function pageQueue(
  loadStore: ProgressQueueOptions['loadStore'],
  page: NonNullable<ProgressQueueOptions['page']>,
): ProgressQueue {
  return createProgressQueue({ writer: createAppendWriter(), loadStore, page, ledger: pageLedger() });
}

/**
 * On a device signed in to sync (one localStorage read), loads the sync triggers (src/client/sync/auto.ts) through
 * start.ts, which has no static imports: any page the learner moves on syncs, not only /progress/.
 */
function startSyncWhenSignedIn(): void {
  try {
    // SYNC_FLAG_KEY of src/store/sync-flag.ts, spelled here so that this chunk imports nothing more
    // (test/unit/sync-flag.test.ts checks the spelling).
    if (localStorage.getItem('saturate:sync') !== '1') return;
  } catch {
    return; // site data blocked: sync runs on /progress/ only
  }
  const start = () => void import('./sync/start.ts').then((m) => m.startSync()).catch(() => undefined);
  if ('requestIdleCallback' in window) requestIdleCallback(start, { timeout: 5000 });
  else setTimeout(start, 2000);
}

if (typeof window !== 'undefined') startSyncWhenSignedIn();
