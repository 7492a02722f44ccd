/**
 * Issue #20, failures 2 and 5. Without usable IndexedDB, progress lives for the whole tab (the next
 * page, e.g. /progress/ where Export is, still has it); where even that is impossible the note says
 * so and offers Export. A slow device reading a long log is given time in proportion to it.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { answer, freshStore, rawAll, T0, tabStorageFake } from './store-helpers.ts';
import { Progress } from '../../src/store/handle.ts';
import { idbBackend, type Backend } from '../../src/store/backend.ts';
import { buildRecord } from '../../src/store/record.ts';
import { memoryBackend } from '../../src/store/memory.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const noIndexedDb: Backend = {
  persistent: true,
  readAll: () => Promise.reject(new DOMException('The user denied permission', 'SecurityError')),
  write: () => Promise.reject(new DOMException('The user denied permission', 'SecurityError')),
};
const pages: Progress[] = [];
/** One page of the tab: a fresh store object, as each page load makes. */
async function page(backend: Backend, tabStorage: ReturnType<typeof tabStorageFake> | null): Promise<Progress> {
  const p = new Progress(backend, { tabs: false, storage: null, clock: () => T0, tabStorage });
  pages.push(p);
  await p.load();
  return p;
}
const record = (i: number) => buildRecord({ type: 'answer', detail: { ...answer(i), offsetMin: 60 } });
afterEach(() => {
  for (const p of pages.splice(0)) p.close();
  vi.useRealTimers();
});

describe('the memory fallback lasts for the tab', () => {
  test('an answer given on a card page without IndexedDB is on the next page, and in its export', async () => {
    const tab = tabStorageFake();
    const card = await page(noIndexedDb, tab);
    const [saved] = await card.append([record(1)]);
    expect(card.snapshot().notSaved).toMatchObject({ reason: 'unavailable', keptFor: 'tab' });
    expect(card.snapshot().notSaved?.message).toMatch(/only until you close this tab/);

    const progressPage = await page(noIndexedDb, tab);
    expect(progressPage.snapshot().answers.map((a) => a.id)).toEqual([saved!.id]);
    expect(progressPage.exportBackup(T0).text).toContain(saved!.id);
  });

  test('once IndexedDB works again on a later page, what the tab kept is stored there', async () => {
    const tab = tabStorageFake();
    const [saved] = await (await page(noIndexedDb, tab)).append([record(1)]);
    const { store } = freshStore();
    const later = await page(idbBackend(store), tab);
    expect(later.snapshot()).toMatchObject({ persistent: true, notSaved: null });
    expect(later.snapshot().answers.map((a) => a.id)).toEqual([saved!.id]);
    expect((await rawAll(store)).map(([k]) => k)).toContain(`e:${saved!.id}`);
    expect(tab.map.size).toBe(0);
  });

  test('a newer database shows what this tab kept, and never receives it', async () => {
    const tab = tabStorageFake();
    const [saved] = await (await page(noIndexedDb, tab)).append([record(1)]);
    const { store } = freshStore();
    await idbBackend(store).write([['meta', { schemaVersion: 3 }]]);
    const later = await page(idbBackend(store), tab);
    expect(later.snapshot().notSaved?.reason).toBe('newer-version');
    expect(later.snapshot().answers.map((a) => a.id)).toEqual([saved!.id]);
    expect((await rawAll(store)).map(([k]) => k)).toEqual(['meta']);
  });

  test('without sessionStorage either, the note says it lasts only for this page and to export now', async () => {
    const p = await page(noIndexedDb, null);
    expect(p.snapshot().notSaved).toMatchObject({ reason: 'unavailable', keptFor: 'page' });
    expect(p.snapshot().notSaved?.message).toMatch(/not keep it past this page.*export a backup now/);
  });

  test('when the tab copy no longer fits in sessionStorage, the note changes to "this page only"', async () => {
    const tab = tabStorageFake(600);
    const p = await page(noIndexedDb, tab);
    await p.append([record(1)]);
    expect(p.snapshot().notSaved?.keptFor).toBe('tab');
    await p.append([record(2), record(3)]);
    expect(p.snapshot().notSaved?.keptFor).toBe('page');
    expect(p.snapshot().answers).toHaveLength(3);
  });
});

describe('a slow open', () => {
  test('a long log that takes 8 s to read loads (the timeout grows with the records), not "blocked"', async () => {
    vi.useFakeTimers();
    const events = makeAnswerEvents(20_000);
    const stored = memoryBackend([['meta', { schemaVersion: 2 }], ...events.map((e) => [`e:${e.id}`, e] as const)]);
    const slow: Backend = {
      persistent: true,
      count: () => stored.readAll().then((all) => all.length),
      readAll: () => new Promise((resolve) => setTimeout(() => resolve(stored.readAll()), 8_000)),
      write: (puts, dels) => stored.write(puts, dels),
    };
    const loading = page(slow, null);
    await vi.advanceTimersByTimeAsync(8_000);
    const p = await loading;
    expect(p.snapshot().notSaved).toBeNull();
    expect(p.snapshot().answers).toHaveLength(20_000);
  });

  test('a store that never answers is still given up on, after the base timeout', async () => {
    vi.useFakeTimers();
    const hanging: Backend = { persistent: true, readAll: () => new Promise(() => {}), write: async () => {} };
    const loading = page(hanging, null);
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await loading).snapshot().notSaved?.reason).toBe('blocked');
  });
});
