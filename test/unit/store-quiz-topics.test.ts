import { afterEach, describe, expect, test } from 'vitest';
import { BERLIN, freshStore, rawPut, T0 } from './store-helpers.ts';
import { closeProgress, openProgress, recordQuizDone, type UseStore } from '../../src/store/progress.ts';
import { practiceAttempts } from '../../src/lib/practice-history.ts';

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});
const quiet = { tabs: false, storage: null } as const;

describe('a finished quiz’s score by topic', () => {
  test('is kept with the quiz-done event and read back into the practice history', async () => {
    const { store, dbName } = freshStore();
    opened.push(store);
    await openProgress(quiet, store);
    const topics = [
      { topic: 'training', correct: 18, total: 20 },
      { topic: 'meters', correct: 6, total: 10 },
    ];
    await recordQuizDone(
      {
        context: 'practice',
        quizId: 'quiz:slow-training',
        total: 30,
        correct: 24,
        durationMs: 600_000,
        topics,
        at: T0,
        ...BERLIN,
      },
      store,
    );
    await closeProgress(store);
    const again = (await import('../../src/store/progress.ts')).createProgressStore(dbName);
    opened.push(again);
    const s = await (await openProgress(quiet, again)).snapshot();
    expect(practiceAttempts(s.events)).toEqual([
      { at: T0, quizId: 'quiz:slow-training', correct: 24, total: 30, durationMs: 600_000, topics },
    ]);
  });

  test('a record with a broken score by topic is quarantined, never half-read', async () => {
    const { store } = freshStore();
    opened.push(store);
    await rawPut(store, `e:${T0}-abcd`, {
      id: `${T0}-abcd`,
      at: T0,
      tz: 'UTC',
      offsetMin: 0,
      type: 'quiz-done',
      context: 'practice',
      quizId: 'practice:abc',
      total: 30,
      correct: 20,
      durationMs: 1000,
      topics: [{ topic: 'training', correct: -1, total: 'many' }],
    });
    const s = await (await openProgress({ ...quiet, clock: () => T0 }, store)).snapshot();
    expect(s.events).toEqual([]);
    expect(s.quarantined.map((q) => q.key)).toEqual([`e:${T0}-abcd`]);
  });
});
