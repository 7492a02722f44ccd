/**
 * `sessionStorage` or `localStorage` when this page may use it, else null: Node has neither, and
 * where site data is blocked merely reading one throws a SecurityError. Shared by the memory fallback
 * (memory.ts), quizzes in progress (quiz-saves.ts) and the page's unwritten events (progress-boot.ts).
 */
export function usableStorage(name: 'sessionStorage' | 'localStorage'): Storage | null {
  try {
    const s = globalThis[name];
    s.getItem('saturate:probe'); // throws where site data is blocked
    return s;
  } catch {
    return null;
  }
}

/** localStorage key: "1" while this device is signed in to sync (src/store/sync-flag.ts). Here, in the every-page
 * chunk, so a page checks it without loading another module. */
export const SYNC_FLAG_KEY = 'saturate:sync';
