/**
 * What a page does with its app events before its write path has loaded (src/client/progress-handoff.ts),
 * over the real write path, queue and full store on fake-indexeddb: nothing loads until the learner
 * moves or something happens; events heard meanwhile are written in order once it loads; events still
 * waiting when the page goes away are kept in localStorage and written once, by the next page.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { answer, freshStore, rawAll, T0, tabStorageFake } from './store-helpers.ts';
import { createAppendWriter } from '../../src/store/append.ts';
import { createProgressQueue, type ProgressQueue } from '../../src/client/progress-queue.ts';
import { createProgressHandoff, UNWRITTEN_KEY, type ProgressHandoff } from '../../src/client/progress-handoff.ts';
import { closeProgress, type UseStore } from '../../src/store/progress.ts';
import { emit } from '../../src/lib/events.ts';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
  vi.unstubAllGlobals();
});

type Storage = ReturnType<typeof tabStorageFake>;

/**
 * A page over `store`: window and document as event targets, and a handoff whose write path loads
 * only when `release()` is called (a slow network), or at once when `gated` is false.
 */
function page(store: UseStore, storage: Storage | null, gated = true) {
  const win = new EventTarget();
  vi.stubGlobal('window', win);
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  let release!: () => void;
  const gate = gated ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  let loads = 0;
  const queues: ProgressQueue[] = [];
  const handoff: ProgressHandoff = createProgressHandoff({
    loadQueue: async () => {
      loads++;
      await gate;
      const writer = createAppendWriter(store, { channelName: `test-${Math.random()}` });
      cleanup.push(() => writer.close());
      const q = createProgressQueue({
        writer,
        loadStore: () => import('../../src/store/listen.ts'),
        store,
        page: { window: win, document: doc },
      });
      queues.push(q);
      return q;
    },
    page: { window: win, document: doc },
    storage,
  });
  handoff.start();
  cleanup.push(
    async () => (await import('../../src/store/listen.ts')).listenForProgress({}, store)(),
    () => closeProgress(store),
  );
  return { win, doc, handoff, release, loads: () => loads };
}

const records = async (store: UseStore) =>
  (await rawAll(store)).filter(([k]) => k.startsWith('e:')).map(([, v]) => v as { type: string; at: number });
const cardRead = (at: number) => ({ cardId: 'meters/gpu-util', topic: 'meters', at });
function appAnswer(i: number) {
  const { tz: _, ...detail } = answer(i);
  return detail;
}

describe('before the write path loads', () => {
  test('a page nobody touches loads no write path; the first touch loads it, before any event', async () => {
    const { store } = freshStore();
    const { win, handoff, loads } = page(store, tabStorageFake(), false);
    await handoff.afterWrites(() => undefined);
    expect(loads()).toBe(0);
    win.dispatchEvent(new Event('pointerdown'));
    win.dispatchEvent(new Event('scroll'));
    expect(loads()).toBe(1);
    await handoff.load();
    emit('saturate:card-read', cardRead(T0));
    await handoff.afterWrites(() => undefined);
    expect((await records(store)).map((r) => r.type)).toEqual(['card-read']);
  });

  test('events heard while it loads are written in the order they happened, each once', async () => {
    const { store } = freshStore();
    const { handoff, release, loads } = page(store, tabStorageFake());
    emit('saturate:answer', appAnswer(1));
    emit('saturate:card-read', cardRead(T0 + 5));
    emit('saturate:answer', appAnswer(2));
    expect(loads()).toBe(1); // the first event asked for it
    expect(await records(store)).toEqual([]);
    release();
    await handoff.afterWrites(() => undefined);
    const written = await records(store);
    expect(written).toHaveLength(3);
    expect(written.map((r) => r.type).sort()).toEqual(['answer', 'answer', 'card-read']);
    const p = await handoff.progressStore();
    expect((await p.loadProgress(store)).answers.map((a) => a.questionId)).toEqual([
      answer(1).questionId,
      answer(2).questionId,
    ]);
  });
});

describe('the page goes away first', () => {
  test('pagehide keeps the waiting events in localStorage; the next page writes them once', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const first = page(store, storage); // its write path never arrives: the tab is closed
    emit('saturate:answer', appAnswer(1));
    emit('saturate:card-read', cardRead(T0 + 5));
    first.win.dispatchEvent(new Event('pagehide'));
    expect(JSON.parse(storage.getItem(UNWRITTEN_KEY)!)).toHaveLength(2);
    expect(await records(store)).toEqual([]);

    const next = page(store, storage, false); // the next page boots: it takes them out at once
    expect(storage.getItem(UNWRITTEN_KEY)).toBeNull();
    await next.handoff.afterWrites(() => undefined);
    expect((await records(store)).map((r) => r.type).sort()).toEqual(['answer', 'card-read']);
    const again = page(store, storage, false);
    await again.handoff.afterWrites(() => undefined);
    expect(await records(store)).toHaveLength(2);
  });

  test('a page back from the back-forward cache writes what it kept once, and the next page none of it', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const first = page(store, storage);
    emit('saturate:answer', appAnswer(1));
    first.win.dispatchEvent(new Event('pagehide'));
    first.release(); // it came back, and its write path loaded after all
    await first.handoff.afterWrites(() => undefined);
    expect(storage.getItem(UNWRITTEN_KEY)).toBeNull();
    expect((await records(store)).map((r) => r.type)).toEqual(['answer']);
    const next = page(store, storage, false);
    await next.handoff.afterWrites(() => undefined);
    expect(await records(store)).toHaveLength(1);
  });

  test('hidden then shown again: what it kept is written by this page once its write path loads', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    const { doc, handoff, release } = page(store, storage);
    emit('saturate:card-read', cardRead(T0));
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    expect(storage.getItem(UNWRITTEN_KEY)).not.toBeNull();
    doc.visibilityState = 'visible';
    doc.dispatchEvent(new Event('visibilitychange'));
    release();
    await handoff.afterWrites(() => undefined);
    expect(storage.getItem(UNWRITTEN_KEY)).toBeNull();
    expect((await records(store)).map((r) => r.type)).toEqual(['card-read']);
  });

  test('where localStorage refuses, the events stay on the page and are written when the write path loads', async () => {
    const { store } = freshStore();
    const full = tabStorageFake(0); // every setItem throws, as a full or blocked storage does
    const { win, handoff, release } = page(store, full);
    emit('saturate:answer', appAnswer(1));
    win.dispatchEvent(new Event('pagehide'));
    release();
    await handoff.afterWrites(() => undefined);
    expect((await records(store)).map((r) => r.type)).toEqual(['answer']);
  });

  test('anything else under the key (a hand edit, a torn write) is dropped, and the page still works', async () => {
    const { store } = freshStore();
    const storage = tabStorageFake();
    storage.setItem(UNWRITTEN_KEY, JSON.stringify([{ type: 'saturate:nope', detail: {} }, 42, null]));
    const { handoff } = page(store, storage, false);
    expect(storage.getItem(UNWRITTEN_KEY)).toBeNull();
    emit('saturate:card-read', cardRead(T0));
    await handoff.afterWrites(() => undefined);
    expect((await records(store)).map((r) => r.type)).toEqual(['card-read']);
    storage.setItem(UNWRITTEN_KEY, '{not json');
    const next = page(store, storage, false);
    await next.handoff.afterWrites(() => undefined);
    expect(await records(store)).toHaveLength(1);
  });
});

describe('a page that reads progress', () => {
  test('progressStore() before the write path has loaded records everything heard, in order', async () => {
    const { store } = freshStore();
    const { handoff, release } = page(store, tabStorageFake());
    emit('saturate:answer', appAnswer(1));
    const loaded = handoff.progressStore();
    expect(handoff.fullWanted()).toBe(true);
    emit('saturate:answer', appAnswer(2));
    let heard = false;
    handoff.whenStoreLoaded(() => (heard = true));
    release();
    const p = await loaded;
    expect(heard).toBe(true);
    expect((await p.loadProgress(store)).answers).toHaveLength(2);
  });
});
