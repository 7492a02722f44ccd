/**
 * The page side of the progress store, loaded on every page by the base layout's components.
 * This module is tiny: it starts listening for the app's `saturate:*` events at once (keeping them
 * in order) and records them one of two ways:
 * - Pages that READ progress (home's week strip and "read next", /progress/, /review/, /saved/)
 *   call `progressStore()`: that loads the full store (zod/mini, ts-fsrs, idb-keyval; its own
 *   chunk), which records what was heard meanwhile and everything after.
 * - Everywhere else (card pages, practice quizzes, labs) nothing asks for the full store, and each
 *   event goes through the light write path (src/store/append.ts: builds the same record, writes
 *   it under the same key, tells the other tabs; no zod, no log read). That path is loaded on the
 *   learner's first move or first event, not with the page (src/client/progress-handoff.ts keeps
 *   the events until then, and across a page that leaves first). The header badge shows the
 *   streak cached by the full store (`watchStreak`), the save button reads its one card's state
 *   (`watchSaved`, src/store/peek.ts).
 * When the write path cannot record an event (no IndexedDB, a failed or blocked write, a newer
 * database, an undo: it needs the log), the full store is loaded and records it
 * (falling back to memory, which shows the "not saved" note). Once the full store is asked for,
 * the write path's pending writes finish first, so it reads them back with the rest of the log.
 * The queue itself (order, hand-over, flushing on pagehide) is src/client/progress-queue.ts.
 */
import { emit } from '../lib/events.ts';
import type { StreakSummary } from '../lib/streak.ts';
import { streakLabel } from '../lib/streak-label.ts';
import { withBase } from '../lib/base-path.ts';
import { savedStateOf, storeIsEmpty } from '../store/peek.ts';
import { usableStorage } from '../store/web-storage.ts';
import {
  cacheEmptyStreak,
  PROGRESS_ERROR_EVENT,
  readStreakCache,
  STREAK_CACHE_EVENT,
  STREAK_CACHE_KEY,
} from '../store/page-signals.ts';
import type { ProgressModule } from './progress-queue.ts';
import { createProgressHandoff } from './progress-handoff.ts';

let listen: Promise<typeof import('../store/listen.ts')> | undefined;
/** The full store's chunk, fetched once (asked for together with the write path, so they load side by side). */
const loadStore = () => (listen ??= import('../store/listen.ts'));

/** The page's events until the write path loads, then its queue (src/client/progress-queue.ts has the lifecycle). */
const queue = createProgressHandoff({
  loadQueue: () => import('./progress-writer.ts').then((m) => m.pageQueue(loadStore, { window, document })),
  ...(typeof document !== 'undefined' ? { page: { window, document } } : {}),
  // Blocked: events that wait when the page leaves cannot be kept for the next one.
  storage: typeof window !== 'undefined' ? usableStorage('localStorage') : null,
});

/** Starts keeping app events until the store is loaded. Idempotent; called on import in a browser. */
export function bufferProgressEvents(): void {
  queue.start();
}

/**
 * The progress store's API (src/store/progress.ts), loaded and opened once; from then on every app
 * event is recorded by it. Never rejects for storage reasons (the store falls back to memory); a
 * failed chunk load (offline before the worker cached it) rejects, and the caller shows nothing.
 */
export function progressStore(): Promise<ProgressModule> {
  void loadStore().catch(() => undefined);
  return queue.progressStore();
}

/** Calls `fn` with the full store once something on the page has loaded it (never loads it). */
export function whenStoreLoaded(fn: (p: ProgressModule) => void): void {
  queue.whenStoreLoaded(fn);
}

/** What the header badge shows. */
export type BadgeStreak = Pick<StreakSummary, 'current' | 'todayDone' | 'freezesHeld'>;

/**
 * The current streak for the header badge, now and after each change. Where the page has the
 * full store, from it (and then it caches the summary, src/store/page-signals.ts); elsewhere from that
 * summary, kept up to date by the write path and other tabs. With no summary for today: 0 on an
 * empty database (a first visit), otherwise the full store is loaded once (this writes the
 * summary). `label`: the badge's accessible name (streakLabel).
 */
export function watchStreak(onChange: (s: BadgeStreak, label: string) => void): void {
  const fn = (s: BadgeStreak) => onChange(s, streakLabel(s));
  const viaStore = withStore((p) =>
    p.watchProgress((s) => {
      const now = Date.now();
      const streak = p.streakOf(s, now);
      // Keep the cached summary true for pages that show the badge without the store (a saved log only).
      if (s.persistent) p.writeStreakCache(p.streakCacheOf(s, streak, now));
      fn(streak);
    }),
  );
  if (!viaStore) return;
  const show = () => {
    const c = readStreakCache();
    if (c && !viaStore.on) fn(c);
    return c;
  };
  addEventListener(STREAK_CACHE_EVENT, show);
  addEventListener('storage', (e) => e.key === STREAK_CACHE_KEY && show());
  if (show()) return;
  const load = () => void progressStore().catch(() => undefined);
  void queue
    .afterWrites(async () => {
      if (!queue.fullWanted() && (await storeIsEmpty())) cacheEmptyStreak();
      else load();
    })
    .catch(load);
}

/**
 * Whether `cardId` is saved, now and after each change made through the store. Where the page
 * has the full store, from it; elsewhere read once from its records without loading the store.
 */
export function watchSaved(cardId: string, fn: (saved: boolean) => void): void {
  const viaStore = withStore((p) => p.watchProgress((s) => fn(s.savedCardIds.includes(cardId))));
  if (!viaStore) return;
  void queue
    .afterWrites(async () => {
      if (queue.fullWanted()) return;
      const saved = await savedStateOf(cardId);
      if (!viaStore.on) fn(saved);
    })
    .catch(() => undefined);
}

/**
 * Runs `use` with the full store: now if the page asked for it (returns null), else once something
 * loads it (returns a flag that turns on then, so the caller stops using its cheaper source).
 */
function withStore(use: (p: ProgressModule) => void): { on: boolean } | null {
  if (queue.loadingStarted()) {
    void progressStore().then(use, () => undefined);
    return null;
  }
  const flag = { on: false };
  whenStoreLoaded((p) => {
    flag.on = true;
    use(p);
  });
  return flag;
}

/**
 * "Progress isn't being saved in this browser (reason)" (src/components/NotSavedNote.astro): shown
 * once per browsing session when the full store had to fall back to memory. Driven from here, so
 * every page runs one script less. A page that only writes progress loads the store when the write
 * path cannot store an event, or at once when IndexedDB is missing.
 */
function notSavedNote(): void {
  const SHOWN = 'saturate:not-saved-shown';
  const note = document.querySelector<HTMLElement>('[data-not-saved-note]');
  const reason = note?.querySelector<HTMLElement>('[data-not-saved-reason]');
  if (!note || !reason) return;
  const seen = () => {
    try {
      return sessionStorage.getItem(SHOWN) === '1';
    } catch {
      return false; // storage blocked entirely: say it on every page rather than never
    }
  };
  const exportButton = note.querySelector<HTMLButtonElement>('[data-not-saved-export]');
  exportButton?.addEventListener('click', () => {
    void progressStore().then(async (p) => {
      const { fileName, text } = await p.exportBackup(Date.now());
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      a.download = fileName;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    });
  });
  if (typeof indexedDB === 'undefined') void progressStore().catch(() => undefined);
  whenStoreLoaded((p) =>
    p.watchProgress((s) => {
      if (!s.notSaved) return;
      // Kept for this page only: say it (again) and offer Export on the spot, whatever was seen before.
      if (exportButton) exportButton.hidden = s.notSaved.keptFor !== 'page';
      if (s.notSaved.keptFor !== 'page' && (seen() || !note.hidden)) return;
      reason.textContent = `(${s.notSaved.message})`;
      note.hidden = false;
      try {
        sessionStorage.setItem(SHOWN, '1');
      } catch {
        /* see seen() */
      }
    }),
  );
  // A record that could not be stored at all (not even in memory) is said every time: never silent.
  addEventListener(PROGRESS_ERROR_EVENT, (e) => {
    const { message } = (e as CustomEvent<{ message: string }>).detail;
    reason.textContent = `(Something you just did could not be saved: ${message})`;
    note.hidden = false;
  });
  note.querySelector('[data-not-saved-dismiss]')?.addEventListener('click', () => (note.hidden = true));
}

/**
 * The header streak badge (src/components/StreakBadge.astro) and a card's save button
 * (src/components/SaveButton.astro), driven from here so a card page runs fewer scripts.
 */
function badgeAndSaveButton(): void {
  const badge = document.querySelector<HTMLAnchorElement>('[data-streak-badge]');
  const count = badge?.querySelector<HTMLElement>('[data-streak-count]');
  if (badge && count) {
    watchStreak((streak, label) => {
      count.textContent = String(streak.current);
      badge.setAttribute('aria-label', label);
      badge.dataset['today'] = streak.todayDone ? 'done' : 'pending';
      // A flame with 0 tells a newcomer (or someone back after a break) nothing but "you have not":
      // the badge shows from the first day that counts. `data-streak-ready` says the device answered.
      badge.hidden = streak.current === 0;
      badge.dataset['streakReady'] = '';
    });
  }
  const button = document.querySelector<HTMLButtonElement>('[data-save-card]');
  const status = document.querySelector<HTMLElement>('[data-save-status]');
  if (button) {
    const cardId = button.dataset['saveCard']!;
    const show = (saved: boolean, said = false) => {
      button.setAttribute('aria-pressed', String(saved));
      if (status && said)
        status.innerHTML = saved
          ? `Saved. Find it under <a href="${withBase('/saved/')}">Saved cards</a>.`
          : 'Removed from your saved cards.';
    };
    button.addEventListener('click', () => {
      const saved = button.getAttribute('aria-pressed') !== 'true';
      show(saved);
      if (status) status.textContent = '';
      emit('saturate:save-toggled', { cardId, saved, at: Date.now() });
      // The status line speaks once the change is written (or handed on: to the store that keeps it in memory and
      // says so, or, if the write path cannot load, to the next page): "Removed" read and a link tapped at once
      // finds it removed there. A CI run once opened the saved list right after an unsave and still found the
      // card listed. A later tap speaks for itself.
      const speak = () => {
        if (button.getAttribute('aria-pressed') === String(saved)) show(saved, true);
      };
      void queue.afterWrites(speak).catch(speak);
    });
    watchSaved(cardId, (saved) => show(saved)); // without loading the full store on a card page
  }
}

bufferProgressEvents();
if (typeof document !== 'undefined') {
  notSavedNote();
  badgeAndSaveButton();
}
