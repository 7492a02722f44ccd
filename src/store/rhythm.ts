/**
 * The learner's daily rhythm on this device (localStorage `saturate:rhythm`, one JSON record; its
 * shape, rules and migration are in src/lib/rhythm.ts). Read synchronously, so the streak views
 * (views.ts) apply it without waiting; validated on every read. When nothing valid is stored the
 * migration's result is written (days at midnight until the switch, 4:00 after): the event log is
 * never touched, so nothing is lost. Without storage (private mode, blocked), the rhythm lives in
 * this page's memory. Other tabs hear changes through the `storage` event.
 */
import { migrateRhythm, parseRhythm, type Rhythm } from '../lib/rhythm.ts';

export const RHYTHM_KEY = 'saturate:rhythm';
/** Dispatched on window when this tab saves a new rhythm (other tabs get a `storage` event). */
export const RHYTHM_EVENT = 'saturate:rhythm-changed';

/** What the rhythm is kept in: localStorage in a browser; tests pass their own. */
export type RhythmStorage = Pick<Storage, 'getItem' | 'setItem'>;

let inMemory: Rhythm | null = null;

function defaultStorage(): RhythmStorage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // Safari in some private modes throws on access
  }
}

/** The device's UTC offset at `now`, minutes east. */
const deviceOffset = (now: number) => -new Date(now).getTimezoneOffset();

/**
 * The stored rhythm, validated; migrated (and written) when none is stored or it fails validation.
 * @example dayStartAt(loadRhythm()) // the hour in effect at each instant, for src/lib/streak.ts
 */
export function loadRhythm(now = Date.now(), storage: RhythmStorage | null = defaultStorage()): Rhythm {
  let text: string | null = null;
  try {
    text = storage ? storage.getItem(RHYTHM_KEY) : null;
  } catch {
    storage = null;
  }
  const stored = parseRhythm(text);
  if (stored) return stored;
  if (!storage && inMemory) return inMemory;
  const migrated = migrateRhythm(now, deviceOffset(now));
  inMemory = migrated;
  try {
    storage?.setItem(RHYTHM_KEY, JSON.stringify(migrated));
  } catch {
    /* storage full or blocked: kept in memory for this page */
  }
  return migrated;
}

/** Saves the rhythm and tells this tab's listeners (other tabs hear the `storage` event). */
export function saveRhythm(r: Rhythm, storage: RhythmStorage | null = defaultStorage()): void {
  inMemory = r;
  try {
    storage?.setItem(RHYTHM_KEY, JSON.stringify(r));
  } catch {
    /* kept in memory for this page */
  }
  if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent(RHYTHM_EVENT));
}

/** Calls `fn` whenever the rhythm changes, in this tab or another; returns the unsubscribe. */
export function watchRhythm(fn: () => void): () => void {
  if (typeof window === 'undefined') return () => {};
  const onStorage = (e: StorageEvent) => {
    if (e.key === RHYTHM_KEY || e.key === null) fn();
  };
  window.addEventListener(RHYTHM_EVENT, fn);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(RHYTHM_EVENT, fn);
    window.removeEventListener('storage', onStorage);
  };
}

/** Forgets the in-memory rhythm (tests). */
export function resetRhythmMemory(): void {
  inMemory = null;
}
