/**
 * What a page does with its app events (`saturate:*`) before the write path is loaded. The write
 * path (src/store/append.ts with src/client/progress-queue.ts, ~2 KB gzip) is not needed until the
 * learner does something: a card counts as read when its end scrolls into view, an answer needs a
 * tap, a save a click. So a page loads it on the first sign of the learner (a pointer, a key, a
 * touch, a scroll) or the first app event, whichever comes first, and a card page that is only
 * opened loads none of it.
 *
 * Until then each event waits here, in order, and is handed to the queue as soon as it loads. If
 * the page is hidden or leaves first (`pagehide`, `visibilitychange` to hidden) with events still
 * waiting, they are moved to localStorage (`UNWRITTEN_KEY`) at once, and whichever page boots next
 * (or this one, when its queue loads or it is shown again) takes them out and records them: each
 * event is either waiting here or stored there, never both, so it is recorded once and never lost.
 * Where localStorage refuses, they stay here and are written when the queue loads.
 */
import { APP_EVENT_TYPES, on, type AppEvent } from '../lib/events.ts';
import type { ProgressModule, ProgressQueue } from './progress-queue.ts';

/** Where events that waited when the page went away are kept for the next page. */
export const UNWRITTEN_KEY = 'saturate:unwritten';

/** The first signs of a learner about to do something: they start loading the write path. */
const INTENT = ['pointerdown', 'keydown', 'touchstart', 'scroll', 'wheel'] as const;

export interface HandoffOptions {
  /** Loads the write path and makes the page's queue (not started: the handoff starts it). */
  loadQueue: () => Promise<ProgressQueue>;
  /** Where `pagehide` and the learner's first moves arrive, and the document's visibility (none on the server). */
  page?: { window: EventTarget; document: EventTarget & { visibilityState: string } };
  /** localStorage, or null where it is blocked. */
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
}

/** The page's queue, or the promise of it; the same questions a page asks of the queue. */
export interface ProgressHandoff {
  /** Starts listening. Idempotent. */
  start(): void;
  /** Loads the write path now (idempotent); resolves with the started queue. */
  load(): Promise<ProgressQueue>;
  /** The full store, loaded and open, with everything heard so far recorded in order. */
  progressStore(): Promise<ProgressModule>;
  /** Calls `fn` with the full store once something has loaded it (never loads it). */
  whenStoreLoaded(fn: (p: ProgressModule) => void): void;
  /** Whether the full store was asked for. */
  fullWanted(): boolean;
  /** Whether `progressStore()` has been called. */
  loadingStarted(): boolean;
  /** Runs `step` once the events heard so far have been written (or handed to the full store). */
  afterWrites<T>(step: () => T | Promise<T>): Promise<T>;
}

const isAppEvent = (e: unknown): e is AppEvent =>
  typeof e === 'object' &&
  e !== null &&
  (APP_EVENT_TYPES as readonly unknown[]).includes((e as AppEvent).type) &&
  typeof (e as AppEvent).detail === 'object' &&
  (e as AppEvent).detail !== null;

export function createProgressHandoff({ loadQueue, page, storage }: HandoffOptions): ProgressHandoff {
  const waiting: AppEvent[] = [];
  const onLoad: ((p: ProgressModule) => void)[] = [];
  let queue: ProgressQueue | null = null;
  let loading: Promise<ProgressQueue> | null = null;
  let storeAsked = false;
  let stop: (() => void)[] = [];

  /** Events an earlier page (or this one, while hidden) left in storage, oldest first; removed there. */
  const takeUnwritten = (): AppEvent[] => {
    try {
      const raw = storage?.getItem(UNWRITTEN_KEY);
      if (!raw) return [];
      storage!.removeItem(UNWRITTEN_KEY);
      const list: unknown = JSON.parse(raw);
      // Written by this module only; anything else there (a hand edit, a bad write) is dropped.
      return Array.isArray(list) ? list.filter(isAppEvent) : [];
    } catch {
      return [];
    }
  };

  const heard = (e: AppEvent) => {
    if (queue) queue.heard(e);
    else {
      waiting.push(e);
      void handoff.load().catch(() => undefined);
    }
  };

  /** The page is hidden or leaving with events waiting for the write path: keep them for the next page. */
  const keep = () => {
    if (queue || !waiting.length || !storage) return;
    try {
      const before = storage.getItem(UNWRITTEN_KEY);
      const kept: unknown = before ? JSON.parse(before) : [];
      storage.setItem(UNWRITTEN_KEY, JSON.stringify([...(Array.isArray(kept) ? kept : []), ...waiting]));
      waiting.length = 0;
    } catch {
      /* storage refused: they stay here, written if the queue loads */
    }
  };

  const handoff: ProgressHandoff = {
    start() {
      if (stop.length || queue || !page || typeof window === 'undefined') return;
      stop = APP_EVENT_TYPES.map((type) => on(type, (detail) => heard({ type, detail } as AppEvent)));
      const intent = () => void handoff.load().catch(() => undefined);
      for (const type of INTENT)
        page.window.addEventListener(type, intent, { once: true, passive: true, capture: true });
      stop.push(() => INTENT.forEach((type) => page.window.removeEventListener(type, intent, { capture: true })));
      page.window.addEventListener('pagehide', keep);
      page.document.addEventListener('visibilitychange', () => {
        if (page.document.visibilityState === 'hidden') keep();
        else for (const e of takeUnwritten()) heard(e); // shown again: what it kept is recorded now
      });
      for (const e of takeUnwritten()) heard(e);
    },

    load() {
      loading ??= loadQueue().then(
        (q) => {
          for (const fn of stop.splice(0)) fn();
          for (const fn of onLoad.splice(0)) q.whenStoreLoaded(fn);
          q.start();
          for (const e of [...takeUnwritten(), ...waiting.splice(0)]) q.heard(e);
          queue = q;
          return q;
        },
        (err: unknown) => {
          loading = null; // offline before the worker cached it: the next event or move tries again
          throw err;
        },
      );
      return loading;
    },

    progressStore() {
      storeAsked = true;
      return handoff.load().then((q) => q.progressStore());
    },

    whenStoreLoaded(fn) {
      if (queue) queue.whenStoreLoaded(fn);
      else onLoad.push(fn);
    },

    fullWanted: () => (queue ? queue.fullWanted() : storeAsked),
    loadingStarted: () => (queue ? queue.loadingStarted() : storeAsked),

    async afterWrites(step) {
      if (queue) return queue.afterWrites(step);
      if (loading || waiting.length) return (await handoff.load()).afterWrites(step);
      return step();
    },
  };
  return handoff;
}
