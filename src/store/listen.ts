/**
 * Records the app's window events (src/lib/events.ts) into the progress store. Call once per page
 * (a layout script); calling again is a no-op. Events that arrive before the store has opened are
 * recorded in order once it has.
 *
 * @example listenForProgress() // in the base layout's <script>
 */
import { on } from '../lib/events.ts';
import { defaultStore, type UseStore } from './kv.ts';
import { openProgress, recordAnswer, recordCardRead, recordLabDone, recordQuizDone, setSaved } from './progress.ts';

let stopCurrent: (() => void) | null = null;
let chain: Promise<unknown> = Promise.resolve();

/** Resolves when every event received so far has been recorded (tests; before a page unloads). */
export function whenRecorded(): Promise<void> {
  return chain.then(() => undefined);
}

/** Starts recording; returns a function that stops it. Idempotent: a second call returns the same stop. */
export function listenForProgress(store: UseStore = defaultStore(), onError: (err: unknown) => void = (err) => console.warn(err)): () => void {
  if (stopCurrent) return stopCurrent;
  if (typeof window === 'undefined') return () => {};
  void openProgress(store); // start reading now, so the first answer does not wait for it
  const queue = (task: () => Promise<unknown>) => {
    chain = chain.then(task).catch(onError);
  };
  const offs = [
    on('saturate:answer', (d) => queue(() => recordAnswer(d, store))),
    on('saturate:card-read', (d) => queue(() => recordCardRead(d, store))),
    on('saturate:quiz-done', (d) => queue(() => recordQuizDone(d, store))),
    on('saturate:lab-done', (d) => queue(() => recordLabDone(d, store))),
    on('saturate:save-toggled', (d) => queue(() => setSaved(d.cardId, d.saved, d.at, store))),
  ];
  const stop = () => {
    for (const off of offs) off();
    if (stopCurrent === stop) stopCurrent = null;
  };
  stopCurrent = stop;
  return stop;
}
