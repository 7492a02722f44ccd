/**
 * Records the app's window events (src/lib/events.ts) into the progress store. Call once per page
 * (a layout script); calling again is a no-op. Events that arrive before the store has opened are
 * recorded in order once it has. A page that loads this module lazily passes what it heard before
 * (`backlog`), so nothing emitted in between is lost (src/client/progress-boot.ts).
 *
 * @example listenForProgress() // in the base layout's <script>
 */
import { APP_EVENT_TYPES, on, type AppEvent, type SaturateEvents } from '../lib/events.ts';
import { defaultStore, type UseStore } from './kv.ts';
import { reportProgressError } from './page-signals.ts';
import {
  openProgress,
  recordAnswer,
  recordCardRead,
  recordLabDone,
  recordQuizDone,
  setSaved,
  undoAnswer,
} from './progress.ts';

export type { AppEvent };
/** The store's API, so a page loads this module and the store with one dynamic import (src/client/progress-boot.ts). */
export * as progress from './progress.ts';

let stopCurrent: (() => void) | null = null;
const pending = new Set<Promise<unknown>>();

/** Resolves when every event received so far has been recorded (tests; before a page unloads). */
export async function whenRecorded(): Promise<void> {
  while (pending.size) await Promise.all([...pending]);
}

/** Which store function records each app event: every one takes the event's detail, then the store. */
const RECORDERS: { [K in AppEvent['type']]: (detail: SaturateEvents[K], store: UseStore) => Promise<unknown> } = {
  'saturate:answer': recordAnswer,
  'saturate:card-read': recordCardRead,
  'saturate:quiz-done': recordQuizDone,
  'saturate:lab-done': recordLabDone,
  'saturate:save-toggled': setSaved,
  'saturate:answer-undone': undoAnswer,
};

/** Records one app event (validated by the store). */
export function recordAppEvent(e: AppEvent, store: UseStore = defaultStore()): Promise<unknown> {
  const record = RECORDERS[e.type] as (detail: AppEvent['detail'], store: UseStore) => Promise<unknown>;
  return record(e.detail, store);
}

/** What `listenForProgress` may be given. */
export interface ListenOptions {
  /** Called with what could not be recorded (default: the page's "not saved" note and the console). */
  onError?: (err: unknown) => void;
  /** Events heard before this module loaded, recorded first, in order. */
  backlog?: readonly AppEvent[];
}

/**
 * Starts recording; returns a function that stops it. Idempotent: a second call returns the same
 * stop.
 */
export function listenForProgress(options: ListenOptions = {}, store: UseStore = defaultStore()): () => void {
  const { onError = reportProgressError, backlog = [] } = options;
  if (stopCurrent) return stopCurrent;
  if (typeof window === 'undefined') return () => {};
  void openProgress({}, store); // start reading now, so the first answer does not wait for it
  // Each event is recorded at once, not after the previous one's write: the store keeps them in
  // order (each waits for the same open, then updates memory synchronously), and IndexedDB runs
  // the writes in the order they were made, so nothing waits in a queue when the tab closes.
  const queue = (e: AppEvent) => {
    const p: Promise<unknown> = recordAppEvent(e, store)
      .catch(onError)
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  for (const e of backlog) queue(e);
  const offs = APP_EVENT_TYPES.map((type) => on(type, (detail) => queue({ type, detail } as AppEvent)));
  const stop = () => {
    for (const off of offs) off();
    if (stopCurrent === stop) stopCurrent = null;
  };
  stopCurrent = stop;
  return stop;
}
