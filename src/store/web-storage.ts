/**
 * `sessionStorage` or `localStorage` when this page may use it, else null: Node has neither, and
 * where site data is blocked merely reading one throws a SecurityError. Shared by the memory fallback
 * (memory.ts), quizzes in progress (quiz-saves.ts), the page's unwritten events (progress-boot.ts) and records
 * (unwritten.ts).
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
