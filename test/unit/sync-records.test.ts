import 'fake-indexeddb/auto';
import { describe, expect, test } from 'vitest';
import { applyRecords, localRecords } from '../../src/store/sync-records.ts';
import { createQuizSaveStore, listQuizSaves, saveQuiz, type QuizSave } from '../../src/store/quiz-saves.ts';
import { migrateRhythm } from '../../src/lib/rhythm.ts';
import type { RhythmStorage } from '../../src/store/rhythm.ts';

const T0 = Date.parse('2026-12-02T12:00:00Z');
const hlc = { wall: T0, counter: 0, node: 'other' };
const memoryStorage = (): RhythmStorage => {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
};
const ids = ['q-1', 'q-2', 'q-3'];
const save = (quizId: string): QuizSave => ({
  v: 1,
  quizId,
  title: 'Random practice quiz',
  href: `/practice/random/?seed=${quizId}`,
  context: 'practice',
  questionIds: ids,
  attempt: 0,
  index: 1,
  answers: [{ questionId: 'q-1', response: { kind: 'single', choices: ['a'] }, correct: true, timeMs: 4000, at: T0 }],
  startedAt: T0,
  savedAt: T0,
});

describe('the records sync carries besides the log', () => {
  test('reads the rhythm and each quiz in progress; writes another device’s versions where they live', async () => {
    const quizzes = createQuizSaveStore(`records-${Math.random()}`);
    const rhythm = memoryStorage();
    await saveQuiz(save('practice:a'), quizzes);
    const mine = await localRecords(T0, { quizzes, rhythm });
    expect([...mine.keys()]).toEqual(['rhythm', 'quiz:practice:a']);

    const goal = { ...migrateRhythm(T0, 0), goal: 'answer-20', goalChosen: true };
    const skipped = await applyRecords(
      [
        { key: 'rhythm', hlc, value: goal },
        { key: 'quiz:practice:b', hlc, value: save('practice:b') },
        { key: 'quiz:practice:a', hlc, deleted: true },
      ],
      { quizzes, rhythm },
    );
    expect(skipped).toEqual([]);
    expect((await localRecords(T0, { quizzes, rhythm })).get('rhythm')).toEqual(goal);
    expect((await listQuizSaves(quizzes)).map((s) => s.quizId)).toEqual(['practice:b']);
  });

  test('a version that fails its check is skipped and nothing here is overwritten', async () => {
    const quizzes = createQuizSaveStore(`records-${Math.random()}`);
    const rhythm = memoryStorage();
    const before = await localRecords(T0, { quizzes, rhythm });
    const skipped = await applyRecords(
      [
        { key: 'rhythm', hlc, value: { v: 1, goal: 'run-a-marathon' } },
        { key: 'quiz:practice:c', hlc, value: { ...save('practice:d') } },
        { key: 'unknown', hlc, value: 1 },
      ],
      { quizzes, rhythm },
    );
    expect(skipped).toEqual(['rhythm', 'quiz:practice:c', 'unknown']);
    expect(await localRecords(T0, { quizzes, rhythm })).toEqual(before);
  });
});
