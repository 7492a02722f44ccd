/**
 * The page's progress queue (src/client/progress-queue.ts) over the real write path and full
 * store on fake-indexeddb. Issue #20, failure 5: an answer given while the full store is still
 * opening, just before the tab closes, is written on `pagehide` / `visibilitychange`.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { answer, freshStore, rawAll, rawPut, T0, tabStorageFake } from './store-helpers.ts';
import { createAppendWriter, type AppendWriter } from '../../src/store/append.ts';
import { createProgressQueue, type ProgressQueue } from '../../src/client/progress-queue.ts';
import { closeProgress, openProgress, type UseStore } from '../../src/store/progress.ts';
import { createUnwrittenLedger, UNWRITTEN_RECORDS_KEY } from '../../src/store/unwritten.ts';
import { recordFor } from '../../src/store/append.ts';
import { emit } from '../../src/lib/events.ts';

type Listen = typeof import('../../src/store/listen.ts');
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
  vi.unstubAllGlobals();
});

/**
 * A page: window and document as event targets, a write path and a queue over `store`; `storage` its localStorage,
 * `wrap` what stands between the queue and the real write path (a page that goes away mid-write).
 */
function page(
  store: UseStore,
  loadStore: () => Promise<Listen> = () => import('../../src/store/listen.ts'),
  storage: ReturnType<typeof tabStorageFake> | null = null,
  wrap: (w: AppendWriter) => AppendWriter = (w) => w,
) {
  const win = new EventTarget();
  vi.stubGlobal('window', win);
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  const real: AppendWriter = createAppendWriter(store, { channelName: `test-${Math.random()}` });
  const writer = wrap(real);
  const queue: ProgressQueue = createProgressQueue({
    writer,
    loadStore,
    store,
    page: { window: win, document: doc },
    ledger: storage ? createUnwrittenLedger(storage) : null,
  });
  queue.start();
  cleanup.push(
    () => real.close(),
    async () => (await import('../../src/store/listen.ts')).listenForProgress({}, store)(),
    () => closeProgress(store),
  );
  return { win, doc, queue };
}
/** A full store whose loading waits for `release()` (a slow device opening a long log). */
function slowLoad() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { release, load: () => gate.then(() => import('../../src/store/listen.ts')) };
}
/** An answer as the quiz emits it (app events carry no zone: the device's is used). */
function appAnswer(i: number) {
  const { tz: _, ...detail } = answer(i);
  return detail;
}
const answerKeys = async (store: UseStore) => (await rawAll(store)).filter(([k]) => k.startsWith('e:'));

describe('the light write path', () => {
  test('writes each event at once, without the full store', async () => {
    const { store } = freshStore();
    const { queue } = page(store, () => Promise.reject(new Error('the full store is not needed')));
    emit('saturate:answer', appAnswer(1));
    emit('saturate:quiz-done', { context: 'card', quizId: 'c', total: 1, correct: 1, durationMs: 9_000, at: T0 });
    await queue.afterWrites(() => undefined);
    expect((await answerKeys(store)).map(([, v]) => (v as { type: string }).type).sort()).toEqual([
      'answer',
      'quiz-done',
    ]);
    expect(queue.fullWanted()).toBe(false);
  });

  test('never writes into a database from a newer release: the full store keeps the answer in memory', async () => {
    const { store } = freshStore();
    await rawPut(store, 'meta', { schemaVersion: 3 });
    const { queue } = page(store);
    emit('saturate:answer', appAnswer(1));
    await queue.afterWrites(() => undefined);
    const s = (await queue.progressStore()).loadProgress(store);
    expect((await s).answers).toHaveLength(1);
    expect((await s).notSaved?.reason).toBe('newer-version');
    expect((await rawAll(store)).map(([k]) => k)).toEqual(['meta']);
  });
});

describe('while the full store is opening', () => {
  test('an answer is written when the page is hidden, before the store has opened', async () => {
    const { store } = freshStore();
    const slow = slowLoad();
    const { win, queue } = page(store, slow.load);
    void queue.progressStore();
    emit('saturate:answer', appAnswer(1));
    await queue.afterWrites(() => undefined);
    expect(await answerKeys(store)).toEqual([]); // waiting for the full store
    win.dispatchEvent(new Event('pagehide'));
    await queue.afterWrites(() => undefined);
    expect(await answerKeys(store)).toHaveLength(1);
    slow.release(); // the page came back (bfcache): the store records it once, under the same key
    const p = await queue.progressStore();
    expect((await p.loadProgress(store)).answers).toHaveLength(1);
    expect(await answerKeys(store)).toHaveLength(1);
  });

  test('visibilitychange to hidden flushes too', async () => {
    const { store } = freshStore();
    const slow = slowLoad();
    const { doc, queue } = page(store, slow.load);
    void queue.progressStore();
    emit('saturate:card-read', { cardId: 'meters/gpu-util', topic: 'meters', at: T0 });
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    await queue.afterWrites(() => undefined);
    expect(await answerKeys(store)).toHaveLength(1);
    slow.release();
    await queue.progressStore();
  });

  test('an answer and its undo heard meanwhile are recorded in order: the answer no longer counts', async () => {
    const { store } = freshStore();
    const slow = slowLoad();
    const { queue } = page(store, slow.load);
    void queue.progressStore();
    emit('saturate:answer', appAnswer(1));
    emit('saturate:answer-undone', {
      questionId: answer(1).questionId,
      answeredAt: answer(1).at,
      at: answer(1).at + 1,
    });
    slow.release();
    const p = await queue.progressStore();
    const s = await p.loadProgress(store);
    expect(s.answers).toEqual([]);
    expect(s.events.map((e) => e.type)).toEqual(['answer', 'undo']);
  });

  test('after the hand-over each event is recorded once, by the full store', async () => {
    const { store } = freshStore();
    const { queue } = page(store);
    const p = await queue.progressStore();
    emit('saturate:answer', appAnswer(2));
    await (await import('../../src/store/listen.ts')).whenRecorded();
    expect((await p.loadProgress(store)).answers).toHaveLength(1);
    expect(await answerKeys(store)).toHaveLength(1);
  });
});

/** A write path whose writes hang until `finish()` (IndexedDB still busy when the learner leaves), or forever. */
function hangingWrites() {
  const held: (() => void)[] = [];
  return {
    wrap: (w: AppendWriter): AppendWriter => ({
      write: (records) =>
        new Promise<void>((resolve, reject) => held.push(() => w.write(records).then(resolve, reject))),
      close: () => w.close(),
    }),
    /** The held writes go through now. */
    finish: () => held.splice(0).forEach((go) => go()),
  };
}
const kept = (storage: ReturnType<typeof tabStorageFake>) =>
  JSON.parse(storage.getItem(UNWRITTEN_RECORDS_KEY) ?? '[]') as { id: string; type: string }[];

describe('a page that goes away while its records are being written', () => {
  test('pagehide keeps them; the next page writes them under the same keys, once', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const dying = page(store, undefined, storage, hangingWrites().wrap);
    emit('saturate:answer', appAnswer(1));
    emit('saturate:save-toggled', { cardId: 'meters/gpu-util', saved: true, at: T0 + 1 });
    dying.win.dispatchEvent(new Event('pagehide')); // the write never completes: the page is gone
    const ids = kept(storage).map((r) => r.id);
    expect(kept(storage).map((r) => r.type)).toEqual(['answer', 'saved']);
    expect(await answerKeys(store)).toEqual([]);

    const next = page(store, undefined, storage);
    await next.queue.afterWrites(() => undefined);
    expect((await answerKeys(store)).map(([k]) => k).sort()).toEqual(ids.map((id) => `e:${id}`).sort());
    expect(storage.getItem(UNWRITTEN_RECORDS_KEY)).toBeNull();
    const p = await next.queue.progressStore();
    const loaded = await p.loadProgress(store);
    expect(loaded.answers).toHaveLength(1);
    expect(loaded.savedCardIds).toEqual(['meters/gpu-util']);
    expect(loaded.quarantined).toEqual([]);
  });

  test('a write that completes while the page is hidden is taken off the list: the next page writes nothing again', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const writes = hangingWrites();
    const hidden = page(store, undefined, storage, writes.wrap);
    emit('saturate:answer', appAnswer(1));
    hidden.doc.visibilityState = 'hidden';
    hidden.doc.dispatchEvent(new Event('visibilitychange'));
    expect(kept(storage)).toHaveLength(1);
    writes.finish();
    await hidden.queue.afterWrites(() => undefined);
    expect(storage.getItem(UNWRITTEN_RECORDS_KEY)).toBeNull();
    expect(await answerKeys(store)).toHaveLength(1);
  });

  test('hidden twice keeps each record once, and one heard in between joins the list', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const writes = hangingWrites();
    const a = page(store, undefined, storage, writes.wrap);
    emit('saturate:answer', appAnswer(1));
    a.win.dispatchEvent(new Event('pagehide'));
    a.win.dispatchEvent(new Event('pagehide'));
    expect(kept(storage)).toHaveLength(1);
    emit('saturate:answer', appAnswer(2));
    a.win.dispatchEvent(new Event('pagehide'));
    expect(kept(storage)).toHaveLength(2);
    writes.finish();
    await a.queue.afterWrites(() => undefined);
    expect(kept(storage)).toEqual([]);
    expect(await answerKeys(store)).toHaveLength(2);
  });

  test('anything else under the key (a hand edit, a torn write) is dropped, and the page still writes', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    storage.setItem(UNWRITTEN_RECORDS_KEY, '[{"id":"meta","type":"x","at":1},{"nope":1},"x"');
    const p1 = page(store, undefined, storage);
    emit('saturate:answer', appAnswer(1));
    await p1.queue.afterWrites(() => undefined);
    expect((await answerKeys(store)).map(([, v]) => (v as { type: string }).type)).toEqual(['answer']);
    storage.setItem(UNWRITTEN_RECORDS_KEY, '[{"id":"meta","type":"x","at":1},{"nope":1}]');
    const p2 = page(store, undefined, storage);
    await p2.queue.afterWrites(() => undefined);
    expect((await rawAll(store)).map(([k]) => k)).not.toContain('meta');
    expect(storage.getItem(UNWRITTEN_RECORDS_KEY)).toBeNull();
  });
});

describe('a page that goes away while the full store is writing', () => {
  test('the record is kept, and the next page writes it once', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    let hang = false;
    // The same database, whose writes never finish once `hang` is set (the page is gone before they commit).
    const hanging: UseStore = (mode, fn) => (hang && mode === 'readwrite' ? new Promise(() => {}) : store(mode, fn));
    const ledger = createUnwrittenLedger(storage);
    const p = await openProgress({ ledger, tabs: false, storage: null, tabStorage: null }, hanging);
    cleanup.push(() => closeProgress(hanging));
    hang = true;
    const record = recordFor({ type: 'saturate:answer', detail: appAnswer(1) });
    void p.append([record]);
    ledger.keep(); // pagehide
    expect(kept(storage).map((r) => r.id)).toEqual([record.id]);
    expect(await answerKeys(store)).toEqual([]);

    const next = page(store, undefined, storage);
    await next.queue.afterWrites(() => undefined);
    expect((await answerKeys(store)).map(([k]) => k)).toEqual([`e:${record.id}`]);
    expect(storage.getItem(UNWRITTEN_RECORDS_KEY)).toBeNull();
  });

  test('a record the full store has stored is not kept', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const ledger = createUnwrittenLedger(storage);
    const p = await openProgress({ ledger, tabs: false, storage: null, tabStorage: null }, store);
    cleanup.push(() => closeProgress(store));
    await p.append([recordFor({ type: 'saturate:answer', detail: appAnswer(1) })]);
    ledger.keep();
    expect(storage.getItem(UNWRITTEN_RECORDS_KEY)).toBeNull();
  });
});
