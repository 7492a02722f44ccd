/**
 * The two things a page reads before loading any sync code (localStorage, synchronous, no IndexedDB):
 * `saturate:sync` = "1" while this device is signed in to sync, and `saturate:sync-url`, a server address the
 * learner typed. src/store/sync-state.ts holds the rest.
 */
import { SYNC_FLAG_KEY, usableStorage } from './web-storage.ts';

export { SYNC_FLAG_KEY };
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
