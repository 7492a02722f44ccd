/**
 * The page side of the progress store, loaded on every page by src/components/ProgressChrome.astro.
 * This module is tiny: it starts listening for the app's `saturate:*` events at once (keeping them
 * in order), and loads the store itself (zod/mini, ts-fsrs, idb-keyval) as a separate chunk, so the
 * first paint of a card waits for none of it. Everything on a page that needs progress calls
 * `progressStore()`; the first call loads the store and records what was heard meanwhile.
 */
import { APP_EVENT_TYPES, on, type AppEvent } from '../lib/events.ts';

type ProgressModule = typeof import('../store/progress.ts');

const backlog: AppEvent[] = [];
let stopBuffering: (() => void)[] | null = null;
let loading: Promise<ProgressModule> | null = null;

/** Starts keeping app events until the store is loaded. Idempotent; called on import in a browser. */
export function bufferProgressEvents(): void {
  if (stopBuffering || loading || typeof window === 'undefined') return;
  stopBuffering = APP_EVENT_TYPES.map((type) => on(type, (detail) => backlog.push({ type, detail } as AppEvent)));
}

/**
 * The progress store's API (src/store/progress.ts), loaded once; from then on every app event is
 * recorded. Never rejects for storage reasons (the store falls back to memory); a failed chunk
 * load (offline before the worker cached it) rejects, and the caller shows nothing.
 */
export function progressStore(): Promise<ProgressModule> {
  loading ??= Promise.all([import('../store/progress.ts'), import('../store/listen.ts')]).then(([progress, listen]) => {
    for (const stop of stopBuffering ?? []) stop();
    stopBuffering = null;
    listen.listenForProgress(undefined, undefined, backlog.splice(0));
    return progress;
  });
  return loading;
}

bufferProgressEvents();
