import 'fake-indexeddb/auto';
import { describe, expect, test } from 'vitest';
import { set, get, type UseStore } from 'idb-keyval';
import {
  clearQuizSave,
  createQuizSaveStore,
  listQuizSaves,
  readQuizSave,
  saveQuiz,
  ENDED_PREFIX,
  TAB_SAVE_PREFIX,
  type QuizSave,
} from '../../src/store/quiz-saves.ts';

const T0 = Date.parse('2026-03-28T10:00:00+01:00');
let n = 0;
const fresh = () => createQuizSaveStore(`quiz-test-${process.pid}-${n++}`);

const ids = Array.from({ length: 30 }, (_, i) => `q-${i + 1}`);
const practice = (over: Partial<QuizSave> = {}): QuizSave => ({
  v: 1,
  quizId: 'practice:abc123',
  title: 'Random practice quiz',
  href: '/practice/random/?seed=abc123',
  context: 'practice',
  questionIds: ids,
  attempt: 0,
  index: 14,
  answers: ids.slice(0, 14).map((questionId, i) => ({
    questionId,
    response: { kind: 'single', choices: ['a'] },
    correct: i % 3 !== 0,
    timeMs: 4_000,
    at: T0 + i * 5_000,
  })),
  startedAt: T0,
  savedAt: T0 + 70_000,
  ...over,
});

/** Runs `fn` with `globalThis[name]` a Storage over `items` (Node has none), restoring what was there after. */
async function withStorage(
  name: 'sessionStorage' | 'localStorage',
  fn: (items: Map<string, string>) => Promise<void>,
): Promise<void> {
  const items = new Map<string, string>();
  const storage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
    key: (i: number) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value: storage, configurable: true });
  try {
    await fn(items);
  } finally {
    if (before) Object.defineProperty(globalThis, name, before);
    else delete (globalThis as Partial<Record<typeof name, unknown>>)[name];
  }
}

describe('quiz saves', () => {
  test('a quiz saved in one tab is read back whole by another (a second handle on the same database)', async () => {
    const dbName = `quiz-test-${process.pid}-${n++}`;
    expect(await saveQuiz(practice(), createQuizSaveStore(dbName))).toBe('device');
    const other = createQuizSaveStore(dbName);
    expect(await readQuizSave('practice:abc123', other)).toEqual(practice());
  });

  test('saving again replaces the quiz’s earlier save; finishing removes it', async () => {
    const store = fresh();
    await saveQuiz(practice(), store);
    await saveQuiz(practice({ index: 15, savedAt: T0 + 80_000 }), store);
    expect((await readQuizSave('practice:abc123', store))?.index).toBe(15);
    await clearQuizSave('practice:abc123', store);
    expect(await readQuizSave('practice:abc123', store)).toBeNull();
    expect(await listQuizSaves(store)).toEqual([]);
  });

  test('lists every quiz in progress, the most recently saved first', async () => {
    const store = fresh();
    await saveQuiz(practice({ quizId: 'quiz:slow-training', href: '/practice/slow-training/', savedAt: T0 }), store);
    await saveQuiz(practice(), store);
    await saveQuiz(practice({ quizId: 'review', href: '/review/', context: 'review', savedAt: T0 + 5 }), store);
    expect((await listQuizSaves(store)).map((s) => s.quizId)).toEqual([
      'practice:abc123',
      'review',
      'quiz:slow-training',
    ]);
  });

  test.each([
    ['not an object', 'garbage'],
    [
      'an answer to a question the quiz does not have',
      practice({ answers: [{ ...practice().answers[0]!, questionId: 'x' }] }),
    ],
    ['a place past the last question', practice({ index: 30 })],
    ['a negative time', practice({ answers: [{ ...practice().answers[0]!, timeMs: -5 }] })],
    ['another version', { ...practice(), v: 2 }],
    ['a link off the site', practice({ href: 'https://evil.example/' })],
  ])('a corrupt save (%s) is dropped, and nothing else is lost', async (_, bad) => {
    const store = fresh();
    const good = practice({ quizId: 'quiz:slow-training', href: '/practice/slow-training/' });
    await saveQuiz(good, store);
    await set('practice:abc123', bad, store);
    expect(await readQuizSave('practice:abc123', store)).toBeNull();
    expect(await get('practice:abc123', store)).toBeUndefined();
    expect(await readQuizSave('quiz:slow-training', store)).toEqual(good);
    await set('practice:abc123', bad, store);
    expect(await listQuizSaves(store)).toEqual([good]);
    expect(await get('practice:abc123', store)).toBeUndefined();
  });

  test('a save filed under another quiz’s id is not read as that quiz', async () => {
    const store = fresh();
    await set('quiz:other', practice(), store);
    expect(await readQuizSave('quiz:other', store)).toBeNull();
  });

  test('where IndexedDB refuses, the save lasts for the tab (sessionStorage) and is read back from there', async () => {
    await withStorage('sessionStorage', async (items) => {
      const refusing: UseStore = () => Promise.reject(new DOMException('blocked', 'InvalidStateError'));
      expect(await saveQuiz(practice(), refusing)).toBe('tab');
      expect(items.has(`${TAB_SAVE_PREFIX}practice:abc123`)).toBe(true);
      expect(await readQuizSave('practice:abc123', refusing)).toEqual(practice());
      expect((await listQuizSaves(refusing)).map((s) => s.quizId)).toEqual(['practice:abc123']);
      await clearQuizSave('practice:abc123', refusing);
      expect(items.size).toBe(0);
    });
  });

  test('a quiz that ends as the page is left is not resumed by the next page, though its delete never completed', async () => {
    await withStorage('localStorage', async (items) => {
      const store = fresh();
      await saveQuiz(practice(), store);
      // "See results", then a link at once: the leaving page's delete never completes.
      const leaving: UseStore = (mode, fn) => (mode === 'readwrite' ? new Promise(() => {}) : store(mode, fn));
      void clearQuizSave('practice:abc123', leaving);
      expect(await get('practice:abc123', store)).toBeDefined(); // still on the device
      expect(items.has(`${ENDED_PREFIX}practice:abc123`)).toBe(true);
      // The next page: nothing to resume, nothing listed, and the record and the mark are gone.
      expect(await readQuizSave('practice:abc123', store)).toBeNull();
      expect(await listQuizSaves(store)).toEqual([]);
      expect(await get('practice:abc123', store)).toBeUndefined();
      expect(items.size).toBe(0);
      // Ended, then started again (a save newer than the mark): resumed, and the stale mark dropped.
      void clearQuizSave('practice:abc123', leaving);
      const again = practice({ index: 1, savedAt: Date.now() + 1_000 });
      await saveQuiz(again, store);
      expect(await readQuizSave('practice:abc123', store)).toEqual(again);
      expect(items.size).toBe(0);
    });
  });
});
