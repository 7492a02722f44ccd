/**
 * Quizzes in progress, kept on the device so a learner finishes what they started: in a new tab,
 * after a reload, after the home-screen app was closed.
 *
 * Stored shape: IndexedDB database "saturate-quiz", object store "in-progress", one record per quiz
 * id (`QuizSave`, src/schemas/quiz-save.ts). Its own database, not the event log's: a quiz in
 * progress is rewritten on every answer and removed when the quiz ends, while the log is append-only
 * (src/store/progress.ts), and the answers themselves are recorded there as they are given.
 *
 * Lifecycle: the quiz saves after each change (`saveQuiz`), reads its record back when it opens
 * (`readQuizSave`), and removes it when it ends (`clearQuizSave`); the home page lists them
 * (`listQuizSaves`). Every read is validated with zod (loaded only when there is a record to read,
 * so a card page that has nothing saved ships no zod); a record that fails is deleted on its own,
 * nothing else is touched.
 *
 * Where IndexedDB is missing or refuses (some private modes), the record goes to sessionStorage
 * under `saturate:quiz-save:<quiz id>`, so it lasts for the tab, as the quiz did before.
 *
 * A quiz that ends is marked ended in localStorage (`saturate:quiz-ended:<quiz id>`, the time) at
 * once, before its record is deleted: a browser may end a leaving page's IndexedDB transaction
 * before it commits ("See results", then a link at once), and the next page would resume a quiz
 * the learner finished. A record saved before its quiz's mark is read as ended and deleted; the
 * mark goes when the record does.
 *
 * Every function has idb-keyval's shape: the detail first, the store last (`store = quizSaveStore()`).
 */
import type { UseStore } from 'idb-keyval';
import { createProgressStore, readAllPairs } from './kv.ts';
import { deleteValue, getValue, setValue } from './kv-ops.ts';
import { usableStorage } from './web-storage.ts';
import type { QuizSave } from '../schemas/quiz-save.ts';

export type { QuizSave };

export const QUIZ_DB_NAME = 'saturate-quiz';
export const QUIZ_STORE_NAME = 'in-progress';
/** The sessionStorage key prefix of the tab-long fallback. */
export const TAB_SAVE_PREFIX = 'saturate:quiz-save:';

/** A store in its own database (tests pass a fresh name); rejects lazily where IndexedDB is missing. */
export function createQuizSaveStore(dbName = QUIZ_DB_NAME): UseStore {
  return createProgressStore(dbName, QUIZ_STORE_NAME);
}

let shared: UseStore | undefined;
/** The app's store, created on first use (never at module load: pages import this on the server). */
export function quizSaveStore(): UseStore {
  shared ??= createQuizSaveStore();
  return shared;
}

const tabStorage = () => usableStorage('sessionStorage');

/** The localStorage key prefix of the time a quiz ended (see the file's comment). */
export const ENDED_PREFIX = 'saturate:quiz-ended:';

/** When the quiz last ended on this device (ms), or null: none kept, or storage blocked. */
function endedAt(quizId: string): number | null {
  try {
    const at = Number(usableStorage('localStorage')?.getItem(ENDED_PREFIX + quizId) ?? NaN);
    return Number.isFinite(at) ? at : null;
  } catch {
    return null;
  }
}

function setEnded(quizId: string, at: number | null): void {
  try {
    const local = usableStorage('localStorage');
    if (at === null) local?.removeItem(ENDED_PREFIX + quizId);
    else local?.setItem(ENDED_PREFIX + quizId, String(at));
  } catch {
    /* storage blocked: the delete alone, as before */
  }
}

function tabRemove(quizId: string): void {
  try {
    tabStorage()?.removeItem(TAB_SAVE_PREFIX + quizId);
  } catch {
    /* nothing to remove where storage is blocked */
  }
}

/**
 * Keeps `save` (replacing the quiz's earlier one). Says where it went: 'device' (IndexedDB), 'tab'
 * (sessionStorage: IndexedDB refused) or 'nowhere' (both refused: the quiz works, it just won't resume).
 */
export async function saveQuiz(
  save: QuizSave,
  store: UseStore = quizSaveStore(),
): Promise<'device' | 'tab' | 'nowhere'> {
  try {
    await setValue(save.quizId, save, store);
    tabRemove(save.quizId);
    return 'device';
  } catch {
    try {
      const tab = tabStorage();
      if (!tab) return 'nowhere';
      tab.setItem(TAB_SAVE_PREFIX + save.quizId, JSON.stringify(save));
      return 'tab';
    } catch {
      return 'nowhere';
    }
  }
}

/** Validates a raw record (zod, loaded on first use). */
async function validate(raw: unknown, quizId?: string): Promise<QuizSave | null> {
  const { parseQuizSave } = await import('../schemas/quiz-save.ts');
  const r = parseQuizSave(raw);
  return r.ok && (quizId === undefined || r.save.quizId === quizId) ? r.save : null;
}

function tabRead(quizId: string): unknown {
  const text = tabStorage()?.getItem(TAB_SAVE_PREFIX + quizId);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // not JSON: fails validation below, and is dropped
  }
}

/**
 * The quiz's saved state, or null when there is none. A record that fails validation is deleted
 * (that record only) and null is returned: the quiz starts again; the answers already given stay
 * in the progress log.
 */
export async function readQuizSave(quizId: string, store: UseStore = quizSaveStore()): Promise<QuizSave | null> {
  let raw: unknown;
  try {
    raw = await getValue(quizId, store);
  } catch {
    raw = undefined; // IndexedDB refused: the tab's copy, if any
  }
  raw ??= tabRead(quizId);
  if (raw === undefined) return null;
  const save = await validate(raw, quizId);
  if (!save || ended(save)) {
    await clearQuizSave(quizId, store, null);
    return null;
  }
  return save;
}

/** Whether the quiz ended after this record was saved (its delete did not complete); a newer record clears the mark. */
function ended(save: QuizSave): boolean {
  const at = endedAt(save.quizId);
  if (at === null) return false;
  if (save.savedAt < at) return true;
  setEnded(save.quizId, null); // started again since it ended
  return false;
}

/**
 * Removes the quiz's saved state (it ended, or was started again), marking it ended at `at` (now by default; null:
 * no mark) until the record is gone.
 */
export async function clearQuizSave(
  quizId: string,
  store: UseStore = quizSaveStore(),
  at: number | null = Date.now(),
): Promise<void> {
  if (at !== null) setEnded(quizId, at);
  tabRemove(quizId);
  try {
    await deleteValue(quizId, store);
  } catch {
    /* IndexedDB refused: there was nothing in it either */
  }
  setEnded(quizId, null);
}

/**
 * Every quiz in progress, the most recently saved first. Records that fail validation are deleted,
 * each on its own. Tab-long fallbacks are included.
 */
export async function listQuizSaves(store: UseStore = quizSaveStore()): Promise<QuizSave[]> {
  let raw: [IDBValidKey, unknown][] = [];
  try {
    raw = await readAllPairs(store);
  } catch {
    /* IndexedDB refused: only the tab's copies */
  }
  const tab = tabStorage();
  const seen = new Set(raw.map(([k]) => String(k)));
  for (let i = 0; i < (tab?.length ?? 0); i++) {
    const key = tab?.key(i);
    if (key?.startsWith(TAB_SAVE_PREFIX) && !seen.has(key.slice(TAB_SAVE_PREFIX.length)))
      raw.push([key.slice(TAB_SAVE_PREFIX.length), tabRead(key.slice(TAB_SAVE_PREFIX.length))]);
  }
  if (raw.length === 0) return [];
  const saves: QuizSave[] = [];
  for (const [key, value] of raw) {
    const save = await validate(value, String(key));
    if (save && !ended(save)) saves.push(save);
    else await clearQuizSave(String(key), store, null);
  }
  return saves.sort((a, b) => b.savedAt - a.savedAt);
}
