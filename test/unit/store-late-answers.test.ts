/**
 * Issue #20, failure 1: late answers. A question left open for a weekend, or a clock set back, gives
 * an implausible `timeMs`. The answer must still count everywhere (stored, read back, exported), the
 * time is clamped and flagged, undo removes exactly the answer shown, and a failed write is visible.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { answer, freshStore, rawAll, rawPut, T0, trackedOpener } from './store-helpers.ts';
import {
  closeProgress,
  createProgressStore,
  exportBackup,
  loadProgress,
  recordAnswer,
  undoAnswer,
} from '../../src/store/progress.ts';
import { listenForProgress, whenRecorded } from '../../src/store/listen.ts';
import { recordFor } from '../../src/store/append.ts';
import { PROGRESS_ERROR_EVENT } from '../../src/store/page-signals.ts';
import { gradeAnswer } from '../../src/lib/review.ts';
import { emit, type AppEvent } from '../../src/lib/events.ts';
import { Rating } from 'ts-fsrs';

const HOUR_MS = 3_600_000;
const { open, closeAll } = trackedOpener();
afterEach(async () => {
  await closeAll();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('late answers', () => {
  test('an answer 25 h after its question appeared is stored, counted after a reload and exported', async () => {
    const { store, dbName } = freshStore();
    await open(store);
    const saved = await recordAnswer(answer(1, { timeMs: 25 * HOUR_MS, at: T0 + 25 * HOUR_MS }), store);
    expect(saved).toMatchObject({ timeMs: 86_400_000, timeClamped: true });
    await closeProgress(store);
    const again = createProgressStore(dbName);
    await open(again);
    const s = await loadProgress(again);
    expect(s.answers.map((a) => a.id)).toEqual([saved.id]);
    expect(s.quarantined).toEqual([]);
    expect((await exportBackup(T0 + 26 * HOUR_MS, again)).text).toContain(saved.id);
  });

  test('an answer stored with a negative time (clock set back) by the light write path counts on the next load', async () => {
    const { store } = freshStore();
    const record = recordFor({
      type: 'saturate:answer',
      detail: { ...answer(2, { timeMs: -4 * 60_000 }), offsetMin: 60 },
    } as AppEvent);
    expect(record).toMatchObject({ timeMs: 0, timeClamped: true });
    // As an older release wrote it: the raw negative time, not clamped.
    const { timeClamped: _, ...raw } = record;
    await rawPut(store, `e:${record.id}`, { ...raw, timeMs: -4 * 60_000 });
    const s = (await open(store)).snapshot();
    expect(s.answers).toHaveLength(1);
    expect(s.answers[0]).toMatchObject({ id: record.id, timeMs: 0, timeClamped: true });
    expect(s.quarantined).toEqual([]);
    expect((await rawAll(store)).map(([k]) => k)).toContain(`e:${record.id}`);
  });

  test('a right answer with a clamped time is Good, never Easy (the time says nothing)', () => {
    expect(gradeAnswer({ correct: true, timeMs: 0, choice: ['a'], timeClamped: true })).toBe(Rating.Good);
    expect(gradeAnswer({ correct: true, timeMs: 0, choice: ['a'] })).toBe(Rating.Easy);
  });
});

describe('undo removes exactly the answer it shows', () => {
  test('an undo for an answer that is not stored undoes nothing, not an older answer to the same question', async () => {
    const { store } = freshStore();
    await open(store);
    const old = await recordAnswer(answer(1, { questionId: 'q-late', at: T0 }), store);
    const undone = await undoAnswer(
      { questionId: 'q-late', answeredAt: T0 + 3 * 24 * HOUR_MS, at: T0 + 80 * HOUR_MS },
      store,
    );
    expect(undone).toBeNull();
    expect((await loadProgress(store)).answers.map((a) => a.id)).toEqual([old.id]);
  });

  test('an undo after a late answer removes that answer and keeps the one from 3 days before', async () => {
    const { store } = freshStore();
    await open(store);
    const old = await recordAnswer(answer(1, { questionId: 'q-late', at: T0 }), store);
    const lateAt = T0 + 3 * 24 * HOUR_MS;
    const late = await recordAnswer(answer(1, { questionId: 'q-late', at: lateAt, timeMs: 25 * HOUR_MS }), store);
    expect(await undoAnswer({ questionId: 'q-late', answeredAt: lateAt, at: lateAt + 1_000 }, store)).toMatchObject({
      id: late.id,
    });
    expect((await loadProgress(store)).answers.map((a) => a.id)).toEqual([old.id]);
  });
});

describe('a record that cannot be stored is never silent', () => {
  test('the page hears a progress error (the "not saved" note shows it), not only the console', async () => {
    const win = new EventTarget();
    vi.stubGlobal('window', win);
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const heard: string[] = [];
    win.addEventListener(PROGRESS_ERROR_EVENT, (e) =>
      heard.push((e as CustomEvent<{ message: string }>).detail.message),
    );
    const { store } = freshStore();
    await open(store);
    const stop = listenForProgress({}, store);
    emit('saturate:answer', answer(1, { timeMs: 25 * HOUR_MS })); // stored: a late answer is fine
    emit('saturate:answer', answer(2, { questionId: 'not an id' })); // refused: a broken emitter
    await whenRecorded();
    stop();
    expect((await loadProgress(store)).answers).toHaveLength(1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatch(/Progress not recorded.*questionId/);
  });
});

describe('answers an older release set aside', () => {
  test('a late answer quarantined before counts again on the next load, and leaves the quarantine', async () => {
    const { store } = freshStore();
    const record = recordFor({
      type: 'saturate:answer',
      detail: { ...answer(3, { timeMs: 25 * HOUR_MS }), offsetMin: 60 },
    } as AppEvent);
    const { timeClamped: _, ...raw } = record;
    const old = { ...raw, timeMs: 25 * HOUR_MS };
    await rawPut(store, `q:e:${record.id}`, {
      key: `e:${record.id}`,
      value: old,
      reason: 'timeMs: A duration is 0 to 86,400,000 ms.',
      quarantinedAt: T0,
    });
    const s = (await open(store)).snapshot();
    expect(s.answers).toMatchObject([{ id: record.id, timeMs: 86_400_000, timeClamped: true }]);
    expect(s.quarantined).toEqual([]);
    const keys = (await rawAll(store)).map(([k]) => k);
    expect(keys).toContain(`e:${record.id}`);
    expect(keys).not.toContain(`q:e:${record.id}`);
  });

  test('a record still damaged stays quarantined', async () => {
    const { store } = freshStore();
    await rawPut(store, 'q:e:1-abcd', { key: 'e:1-abcd', value: { id: '1-abcd' }, reason: 'x', quarantinedAt: T0 });
    expect((await open(store)).snapshot().quarantined.map((q) => q.key)).toEqual(['e:1-abcd']);
  });
});
