import { afterEach, describe, expect, test } from 'vitest';
import { freshStore, rawAll, rawPut } from './store-helpers.ts';
import {
  closeProgress,
  createProgressStore,
  openProgress,
  recordAnswer,
  type UseStore,
} from '../../src/store/progress.ts';
import { idbBackend } from '../../src/store/backend.ts';
import { COMPACT_AT, CHUNK_SIZE, compaction } from '../../src/store/chunks.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});
const quiet = { tabs: false, storage: null } as const;
const open = (s: UseStore) => {
  opened.push(s);
  return openProgress(quiet, s);
};
const keysOf = async (s: UseStore, prefix: string) =>
  (await rawAll(s)).map(([k]) => k).filter((k) => k.startsWith(prefix));

/** Waits until the background compaction has landed (no sleeps: polls the database). */
async function compacted(s: UseStore): Promise<void> {
  for (let i = 0; i < 200 && (await keysOf(s, 'c:')).length === 0; i++) await new Promise((r) => setImmediate(r));
}

describe('compaction', () => {
  test('moves many single events into chunks, and the log opens the same', async () => {
    const { store, dbName } = freshStore();
    const events = makeAnswerEvents(CHUNK_SIZE + 700);
    await idbBackend(store).write([['meta', { schemaVersion: 2 }], ...events.map((e) => [`e:${e.id}`, e] as const)]);
    const first = (await open(store)).snapshot();
    expect(first.events).toHaveLength(events.length);
    await compacted(store);
    expect(await keysOf(store, 'e:')).toEqual([]);
    expect(await keysOf(store, 'c:')).toHaveLength(2);
    await closeProgress(store);
    const again = createProgressStore(dbName);
    const s = (await open(again)).snapshot();
    expect(s.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    expect(s.quarantined).toEqual([]);
    // New answers are still written one per key, beside the chunks.
    await recordAnswer(
      {
        questionId: 'q',
        cardId: 'c',
        topic: 't',
        choice: ['a'],
        correct: true,
        timeMs: 1,
        context: 'card',
        at: events.at(-1)!.at + 1,
        tz: 'UTC',
      },
      again,
    );
    expect(await keysOf(again, 'e:')).toHaveLength(1);
  });

  test('a large import is written as chunks, and opens the same', async () => {
    const { store: from } = freshStore();
    const events = makeAnswerEvents(COMPACT_AT + 300);
    await idbBackend(from).write([
      ['meta', { schemaVersion: 2 }],
      ['c:all', events],
    ]);
    const text = (await open(from)).exportBackup(events.at(-1)!.at).text;
    const { store, dbName } = freshStore();
    const to = await open(store);
    expect(await to.applyImport(text)).toMatchObject({ ok: true, added: events.length });
    expect(await keysOf(store, 'e:')).toEqual([]);
    expect(await keysOf(store, 'c:')).toHaveLength(1);
    await closeProgress(store);
    const reopened = (await open(createProgressStore(dbName))).snapshot();
    expect(reopened.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  test('leaves a short log alone', () => {
    expect(compaction(makeAnswerEvents(COMPACT_AT - 1), (id) => `e:${id}`).puts).toEqual([]);
  });

  test('deletes exactly the single keys it put in chunks (an event another tab adds meanwhile stays)', () => {
    const events = makeAnswerEvents(COMPACT_AT);
    const c = compaction(events, (id) => `e:${id}`);
    expect(c.dels).toEqual(events.map((e) => `e:${e.id}`));
    expect(c.puts.flatMap(([, part]) => part)).toEqual(events);
  });

  test('an event both in a chunk and a single key (two tabs compacting) counts once', async () => {
    const { store } = freshStore();
    const events = makeAnswerEvents(10);
    await idbBackend(store).write([
      ['meta', { schemaVersion: 2 }],
      [`c:${events[0]!.id}~${events[9]!.id}`, events],
      [`c:${events[5]!.id}~${events[9]!.id}`, events.slice(5)],
      [`e:${events[3]!.id}`, events[3]],
    ]);
    expect((await open(store)).snapshot().events).toHaveLength(10);
  });

  test('quarantines a corrupt item of a chunk, keeps the rest and rewrites the chunk without it', async () => {
    const { store, dbName } = freshStore();
    const events: unknown[] = makeAnswerEvents(4);
    events[2] = { ...(events[2] as object), correct: 'yes' };
    await rawPut(store, 'meta', { schemaVersion: 2 });
    await rawPut(store, 'c:chunk', events);
    await rawPut(store, 'c:not-a-list', { hello: 1 });
    const s = (await open(store)).snapshot();
    expect(s.answers).toHaveLength(3);
    expect(s.quarantined.map((q) => q.key).sort()).toEqual(['c:chunk#2', 'c:not-a-list']);
    await closeProgress(store);
    const again = createProgressStore(dbName);
    const s2 = (await open(again)).snapshot();
    expect(s2.answers).toHaveLength(3);
    expect(s2.quarantined).toHaveLength(2); // still reported, not quarantined twice
  });
});
