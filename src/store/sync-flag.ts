/**
 * The two things a page reads before loading any sync code (localStorage, synchronous, no IndexedDB):
 * `saturate:sync` = "1" while this device is signed in to sync, and `saturate:sync-url`, a server address the
 * learner typed. src/store/sync-state.ts holds the rest.
 */
// No import of web-storage.ts: a module of sync that imported it would split it from the chunk card pages load
// with it, and that split alone put a card page over its 10 KB of JavaScript before a figure (test/e2e/figures.spec.ts).
/** localStorage key: "1" while this device is signed in to sync. */
export const SYNC_FLAG_KEY = 'saturate:sync';

/** localStorage when this page may use it (web-storage.ts `usableStorage`, for this one store), else null. */
function usableStorage(_name: 'localStorage'): Storage | null {
  try {
    const s = globalThis.localStorage;
    s.getItem('saturate:probe');
    return s;
  } catch {
    return null;
  }
}
export const SYNC_URL_KEY = 'saturate:sync-url';

/** Marks this device signed in (or not). */
export function setSyncFlag(on: boolean): void {
  try {
    const ls = usableStorage('localStorage');
    if (on) ls?.setItem(SYNC_FLAG_KEY, '1');
    else ls?.removeItem(SYNC_FLAG_KEY);
  } catch {
    /* blocked: pages then load sync only on /progress/ */
  }
}

/** Whether this device is signed in to sync (synchronous, for a page deciding whether to load sync). */
export function syncFlag(): boolean {
  try {
    return usableStorage('localStorage')?.getItem(SYNC_FLAG_KEY) === '1';
  } catch {
    return false;
  }
}

/** The server address the learner typed, if any. */
export function typedServerUrl(): string | null {
  try {
    return usableStorage('localStorage')?.getItem(SYNC_URL_KEY) ?? null;
  } catch {
    return null;
  }
}

/** Keeps (or with null, forgets) the server address the learner typed. */
export function saveTypedServerUrl(url: string | null): void {
  try {
    const ls = usableStorage('localStorage');
    if (url) ls?.setItem(SYNC_URL_KEY, url);
    else ls?.removeItem(SYNC_URL_KEY);
  } catch {
    /* kept for this page only */
  }
}
