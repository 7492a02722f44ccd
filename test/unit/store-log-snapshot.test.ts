import { afterEach, describe, expect, test } from 'vitest';
import { freshStore, rawAll, rawPut } from './store-helpers.ts';
import { closeProgress, openProgress, type UseStore } from '../../src/store/progress.ts';
import { idbBackend } from '../../src/store/backend.ts';
import { chunkKey, COMPACT_AT } from '../../src/store/chunks.ts';
import { LOG_KEY, logSnapshotRecord, trustedLog, type LogSnapshot } from '../../src/store/log-snapshot.ts';
import { decodeLog, encodeLog } from '../../src/store/log-codec.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});
const quiet = { tabs: false, storage: null } as const;
/** Opens the store afresh (closing what this test opened before), and returns its snapshot. */
const reopen = async (s: UseStore) => {
  await closeProgress(s);
  opened.push(s);
  return (await openProgress(quiet, s)).snapshot();
};
const raw = async (s: UseStore, key: string) => (await rawAll(s)).find(([k]) => k === key)?.[1];
/** Polls the database (no sleeps) until `ok` holds for the stored snapshot. */
async function until(s: UseStore, ok: (snap: LogSnapshot | undefined) => boolean): Promise<LogSnapshot | undefined> {
  for (let i = 0; i < 300; i++) {
    const snap = (await raw(s, LOG_KEY)) as LogSnapshot | undefined;
    if (ok(snap)) return snap;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('the log snapshot never reached the expected state');
}

/** A store holding `n` events as single records, opened once: it compacts them and writes the snapshot. */
async function compactedStore(n = COMPACT_AT + 100) {
  const { store } = freshStore();
  const events = makeAnswerEvents(n);
  await idbBackend(store).write([['meta', { schemaVersion: 2 }], ...events.map((e) => [`e:${e.id}`, e] as const)]);
  opened.push(store);
  await openProgress(quiet, store);
  const snap = await until(store, (s) => s !== undefined);
  return { store, events, snap: snap! };
}
const ids = (es: readonly { id: string }[]) => es.map((e) => e.id);

describe('the log snapshot (cache:log)', () => {
  test('is written with the compaction, names its chunk, and a warm open from it gives the same log', async () => {
    const { store, events, snap } = await compactedStore();
    const chunks = (await rawAll(store)).filter(([k]) => k.startsWith('c:')).map(([k]) => k);
    expect(snap.chunks).toEqual(chunks);
    expect(snap.count).toBe(events.length);
    const s = await reopen(store);
    expect(ids(s.events)).toEqual(ids(events));
    expect(s.answers).toHaveLength(events.length);
    expect(s.quarantined).toEqual([]);
  });

  test('a warm open does not read the chunks it covers again', async () => {
    const { store, events, snap } = await compactedStore();
    // Were the chunk read, this would be quarantined; the snapshot holds its events already validated.
    await rawPut(store, snap.chunks[0]!, 'not a chunk');
    const s = await reopen(store);
    expect(s.events).toHaveLength(events.length);
    expect(s.quarantined).toEqual([]);
  });

  test.each([
    ['text that is not JSON', (s: LogSnapshot) => ({ ...s, text: '[{"id":' })],
    ['another number of events', (s: LogSnapshot) => ({ ...s, count: s.count + 1 })],
    ['an unknown version', (s: LogSnapshot) => ({ ...s, v: 3 })],
    ['an item that is no event', (s: LogSnapshot) => ({ ...s, text: encodeLog([{ hello: 1 }]), count: 1 })],
    ['a chunk no longer stored (stale)', (s: LogSnapshot) => ({ ...s, chunks: [...s.chunks, 'c:gone~gone~1.x'] })],
    ['not an object at all', () => 'garbage'],
    [
      'an event twice',
      (s: LogSnapshot) => {
        const evs = decodeLog(s.text);
        return { ...s, text: encodeLog([evs[0]!, ...evs]), count: s.count + 1 };
      },
    ],
    [
      'events out of order',
      (s: LogSnapshot) => {
        const evs = decodeLog(s.text);
        return { ...s, text: encodeLog([evs[1]!, evs[0]!, ...evs.slice(2)]) };
      },
    ],
    ['an encoded text cut short', (s: LogSnapshot) => ({ ...s, text: s.text.slice(0, Math.floor(s.text.length / 2)) })],
    [
      'a string index outside its table',
      (s: LogSnapshot) => {
        const enc = JSON.parse(s.text) as { s: string[] };
        return { ...s, text: JSON.stringify({ ...enc, s: enc.s.slice(0, 1) }) };
      },
    ],
    [
      "the previous release's format (v1: the events' JSON)",
      (s: LogSnapshot) => ({ v: 1, chunks: s.chunks, count: s.count, text: JSON.stringify(decodeLog(s.text)) }),
    ],
  ])('a snapshot with %s is ignored: every event is read from the chunks, and it is rewritten', async (_, spoil) => {
    const { store, events, snap } = await compactedStore();
    await rawPut(store, LOG_KEY, spoil(snap));
    const s = await reopen(store);
    expect(ids(s.events)).toEqual(ids(events));
    expect(s.quarantined).toEqual([]);
    // Rewritten: a snapshot that decodes and holds every event again.
    const fixed = await until(store, (x) => x?.count === events.length && trustedLog(x, x.chunks) !== null);
    expect(trustedLog(fixed, fixed!.chunks)?.events).toHaveLength(events.length);
  });

  test('a chunk the snapshot does not name is read and validated, and the snapshot then names it', async () => {
    const { store, events } = await compactedStore();
    const later = makeAnswerEvents(50, Date.parse('2026-01-01T08:00:00Z'));
    const key = chunkKey(later);
    await rawPut(store, key, [...later.slice(0, 49), { broken: true }]);
    const s = await reopen(store);
    expect(s.events).toHaveLength(events.length + 49);
    expect(s.quarantined.map((q) => q.key)).toEqual([`${key}#49`]);
    const snap = await until(store, (x) => x?.chunks.includes(key) === true);
    expect(snap!.count).toBe(events.length + 49);
    expect((await reopen(store)).events).toHaveLength(events.length + 49); // and from the snapshot alone
  });

  test("a snapshot an older release quarantined is dropped, not shown as the learner's lost progress", async () => {
    const { store, events, snap } = await compactedStore();
    await rawPut(store, `q:${LOG_KEY}`, {
      key: LOG_KEY,
      value: snap,
      reason: 'not a record this version of Saturate knows',
      quarantinedAt: 1,
    });
    const s = await reopen(store);
    expect(s.quarantined).toEqual([]);
    expect(s.events).toHaveLength(events.length);
    for (let i = 0; i < 300 && (await raw(store, `q:${LOG_KEY}`)) !== undefined; i++)
      await new Promise((r) => setImmediate(r));
    expect(await raw(store, `q:${LOG_KEY}`)).toBeUndefined();
  });

  test('logSnapshotRecord and trustedLog agree on what was written', () => {
    const events = makeAnswerEvents(3);
    const rec = logSnapshotRecord(['c:b', 'c:a'], events);
    expect(rec.chunks).toEqual(['c:a', 'c:b']);
    expect(trustedLog(rec, ['c:a', 'c:b', 'c:c'])?.events).toEqual(JSON.parse(JSON.stringify(events)));
    expect(trustedLog(rec, ['c:a'])).toBeNull();
  });
});
