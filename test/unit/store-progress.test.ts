import { afterEach, describe, expect, test, vi } from 'vitest';
import { answer, BERLIN, freshStore, rawAll, rawPut, T0, tabStorageFake } from './store-helpers.ts';
import {
  closeProgress,
  computeStats,
  getRetakeQuestionIds,
  getReviewQueue,
  getStreak,
  loadProgress,
  openProgress,
  recordAnswer,
  recordCardRead,
  recordLabDone,
  storageEstimate,
  subscribe,
  toggleSaved,
  undoLast,
  type ProgressSnapshot,
  type UseStore,
} from '../../src/store/progress.ts';
import { listenForProgress, whenRecorded } from '../../src/store/listen.ts';
import { emit } from '../../src/lib/events.ts';

const opened: UseStore[] = [];
function track(store: UseStore) {
  opened.push(store);
  return store;
}
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
  vi.unstubAllGlobals();
});
const quiet = { tabs: false, storage: null } as const;

describe('openProgress', () => {
  test('keeps recorded progress across a reload', async () => {
    const { store, dbName } = freshStore();
    await openProgress(quiet, track(store));
    for (let i = 0; i < 6; i++) await recordAnswer(answer(i), store);
    await recordCardRead({ cardId: 'meters/gpu-util', topic: 'meters', at: T0, ...BERLIN }, store);
    await closeProgress(store);
    const again = track((await import('../../src/store/progress.ts')).createProgressStore(dbName));
    await openProgress(quiet, again);
    const s = await loadProgress(again);
    expect(s.persistent).toBe(true);
    expect(s.answers).toHaveLength(6);
    expect([...s.readCardIds]).toEqual(['meters/gpu-util']);
    expect(s.answers[0]).toMatchObject({ tz: 'Europe/Berlin', offsetMin: 60 });
    expect((await getStreak({ now: T0 + 3_600_000, tz: 'Europe/Berlin' }, again)).current).toBe(1);
  });

  test('quarantines a corrupt record and still loads the rest', async () => {
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    await recordAnswer(answer(1), store);
    await closeProgress(store);
    await rawPut(store, 'e:123-corrupt', { id: '123-corrupt', at: 123, type: 'answer', correct: 'yes' });
    await rawPut(store, 'e:5-aaaa', { bogus: true, __proto__: { polluted: 1 } });
    const s = await (await openProgress({ ...quiet, clock: () => T0 }, track(store))).snapshot();
    expect(s.answers).toHaveLength(1);
    expect(s.quarantined.map((q) => q.key).sort()).toEqual(['e:123-corrupt', 'e:5-aaaa']);
    expect(s.quarantined[0]!.reason).toMatch(/./);
    const keys = (await rawAll(store)).map(([k]) => k);
    expect(keys).toContain('q:e:123-corrupt');
    expect(keys).not.toContain('e:123-corrupt');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // still reported after another reload
    await closeProgress(store);
    expect((await (await openProgress(quiet, track(store))).snapshot()).quarantined).toHaveLength(2);
  });

  test('works in memory and says so when IndexedDB is unavailable', async () => {
    const failing: UseStore = track(() =>
      Promise.reject(new DOMException('The user denied permission', 'SecurityError')),
    );
    const p = await openProgress({ ...quiet, tabStorage: tabStorageFake() }, failing);
    await recordAnswer(answer(1), failing);
    const s = p.snapshot();
    expect(s.persistent).toBe(false);
    expect(s.notSaved?.reason).toBe('unavailable');
    expect(s.notSaved?.message).toMatch(/only until you close this tab/);
    expect(s.answers).toHaveLength(1);
  });

  test('gives up on a blocked IndexedDB after the timeout and keeps working', async () => {
    const hanging: UseStore = track(() => new Promise(() => {}));
    const p = await openProgress({ ...quiet, openTimeoutMs: 20 }, hanging);
    expect(p.snapshot().notSaved?.reason).toBe('blocked');
    await toggleSaved({ cardId: 'meters/a', at: T0 }, hanging);
    expect(p.snapshot().savedCardIds).toEqual(['meters/a']);
  });

  test('switches to memory when a write fails, keeping what was recorded', async () => {
    const { store } = freshStore();
    let fail = false;
    const flaky: UseStore = track((mode, cb) =>
      fail && mode === 'readwrite' ? Promise.reject(new DOMException('full', 'QuotaExceededError')) : store(mode, cb),
    );
    const p = await openProgress(quiet, flaky);
    await recordAnswer(answer(1), flaky);
    fail = true;
    await recordAnswer(answer(2), flaky);
    const s = p.snapshot();
    expect(s.answers).toHaveLength(2);
    expect(s.persistent).toBe(false);
    expect(s.notSaved).toMatchObject({ reason: 'write-failed', message: expect.stringMatching(/full/) });
  });

  test('never touches a database written by a newer version', async () => {
    const { store } = freshStore();
    await rawPut(store, 'meta', { schemaVersion: 99 });
    await rawPut(store, 'e:1-future', { id: '1-future', type: 'hologram' });
    const p = await openProgress(quiet, track(store));
    await recordAnswer(answer(1), store);
    expect(p.snapshot().notSaved?.reason).toBe('newer-version');
    expect((await rawAll(store)).map(([k]) => k).sort()).toEqual(['e:1-future', 'meta']);
  });
});

describe('recording', () => {
  test('asks for persistent storage once, when the learner first has a day that counts', async () => {
    const { store } = freshStore();
    const storage = {
      persist: vi.fn(async () => true),
      persisted: vi.fn(async () => false),
      estimate: async () => ({ usage: 2048, quota: 1e9 }),
    };
    const p = await openProgress({ tabs: false, storage, clock: () => T0 }, track(store));
    for (let i = 0; i < 4; i++) await recordAnswer(answer(i), store);
    await new Promise((r) => setTimeout(r, 0));
    expect(storage.persist).not.toHaveBeenCalled();
    for (let i = 4; i < 8; i++) await recordAnswer(answer(i), store);
    await vi.waitFor(() => expect(p.snapshot().persistGranted).toBe(true));
    expect(storage.persist).toHaveBeenCalledTimes(1);
    expect(await storageEstimate(store)).toEqual({ usageBytes: 2048, quotaBytes: 1e9 });
  });

  test('toggles saved cards, newest first', async () => {
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    expect(await toggleSaved({ cardId: 'meters/a', at: T0 }, store)).toBe(true);
    expect(await toggleSaved({ cardId: 'meters/b', at: T0 + 1 }, store)).toBe(true);
    expect(await toggleSaved({ cardId: 'meters/a', at: T0 + 2 }, store)).toBe(false);
    expect(await toggleSaved({ cardId: 'meters/c', at: T0 + 3 }, store)).toBe(true);
    expect((await loadProgress(store)).savedCardIds).toEqual(['meters/c', 'meters/b']);
  });

  test('undo removes the last answer from stats, mistakes and the review queue', async () => {
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    await recordAnswer(answer(1, { questionId: 'a', correct: true }), store);
    const wrong = await recordAnswer(answer(2, { questionId: 'b', correct: false }), store);
    expect(await getRetakeQuestionIds(store)).toEqual(['b']);
    expect((await undoLast({ at: T0 + 600_000 }, store))?.id).toBe(wrong.id);
    const s = await loadProgress(store);
    expect(s.answers.map((a) => a.questionId)).toEqual(['a']);
    expect(await getRetakeQuestionIds(store)).toEqual([]);
    expect(computeStats(s, T0 + 600_000).totals.answers).toBe(1);
    const q = await getReviewQueue({ bank: [{ id: 'a' }, { id: 'b' }], now: T0 + 700_000 }, store);
    expect(q.fresh.map((x) => x.id)).toEqual(['b']);
  });

  test('rejects a malformed event with a message, recording nothing', async () => {
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    await expect(recordAnswer(answer(1, { questionId: 'bad id with spaces' }), store)).rejects.toThrow(
      /malformed.*questionId/,
    );
    expect((await loadProgress(store)).events).toHaveLength(0);
  });

  test('a cached schedule that is corrupt is rebuilt to the same schedule', async () => {
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    for (let i = 0; i < 10; i++) await recordAnswer(answer(i), store);
    await closeProgress(store);
    const before = (await openProgress(quiet, track(store))).snapshot().schedule;
    await closeProgress(store);
    await rawPut(store, 'cache:schedule', { v: 1, questions: 'garbage' });
    const after = (await openProgress(quiet, track(store))).snapshot().schedule;
    expect([...after.questions.keys()].sort()).toEqual([...before.questions.keys()].sort());
    expect(after.questions.get('q-1')!.card.due.getTime()).toBe(before.questions.get('q-1')!.card.due.getTime());
  });
});

describe('two tabs', () => {
  test('answering at the same time loses nothing, and each tab sees the other', async () => {
    const { dbName } = freshStore();
    const { createProgressStore } = await import('../../src/store/progress.ts');
    const a = track(createProgressStore(dbName));
    const b = track(createProgressStore(dbName));
    const channelName = `tabs-${dbName}`;
    await openProgress({ storage: null, channelName }, a);
    await openProgress({ storage: null, channelName }, b);
    let seenByB: ProgressSnapshot | null = null;
    const off = subscribe((s) => (seenByB = s), b);
    await Promise.all(
      [...Array(20).keys()].flatMap((i) => [
        recordAnswer(answer(i), a),
        recordAnswer(answer(i, { questionId: 'from-b' }), b),
      ]),
    );
    await vi.waitFor(() => expect(seenByB?.answers).toHaveLength(40));
    off();
    expect((await rawAll(a)).filter(([k]) => k.startsWith('e:'))).toHaveLength(40);
  });
});

describe('listenForProgress', () => {
  test('records the window events once, however often it is called', async () => {
    vi.stubGlobal('window', new EventTarget());
    const { store } = freshStore();
    await openProgress(quiet, track(store));
    const stop = listenForProgress({}, store);
    expect(listenForProgress({}, store)).toBe(stop);
    emit('saturate:answer', answer(1));
    emit('saturate:card-read', { cardId: 'meters/gpu-util', topic: 'meters', at: T0 });
    emit('saturate:save-toggled', { cardId: 'meters/gpu-util', saved: true, at: T0 });
    emit('saturate:save-toggled', { cardId: 'meters/gpu-util', saved: true, at: T0 + 1 });
    emit('saturate:quiz-done', {
      context: 'practice',
      quizId: 'k3x9q2',
      total: 30,
      correct: 20,
      durationMs: 60_000,
      at: T0,
    });
    emit('saturate:lab-done', { labId: 'dataloader-stall', passed: true, durationMs: 90_000, at: T0 });
    await whenRecorded();
    stop();
    const s = await loadProgress(store);
    expect(s.events.map((e) => e.type).sort()).toEqual(['answer', 'card-read', 'lab-done', 'quiz-done', 'saved']);
    await recordLabDone({ labId: 'x', passed: false, durationMs: 1, at: T0 }, store);
  });
});
