/**
 * Issue #20, failure 4: two tabs compacting at once. Tab A reads the singles and starts its
 * compaction write, which is slow; meanwhile a record arrives whose time falls inside the range
 * (another device's answer, merged late) and tab B compacts everything, that record included. When
 * A's write lands, it must not replace B's chunk: every event is still there after a reload.
 */
import { describe, expect, test } from 'vitest';
import { freshStore, rawAll } from './store-helpers.ts';
import { Progress } from '../../src/store/handle.ts';
import { idbBackend, type Backend } from '../../src/store/backend.ts';
import { COMPACT_AT, chunkKey } from '../../src/store/chunks.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const quiet = { tabs: false, storage: null } as const;

/** A backend whose chunk writes wait until `release()` (a slow tab); everything else goes straight through. */
function slowChunkWrites(inner: Backend) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let landed: Promise<void> | null = null;
  let held = 0;
  const backend: Backend = {
    persistent: true,
    readAll: () => inner.readAll(),
    write: (puts, dels) => {
      if (!puts.some(([k]) => k.startsWith('c:'))) return inner.write(puts, dels);
      held++;
      landed = gate.then(() => inner.write(puts, dels));
      return landed;
    },
  };
  return { backend, release, held: () => held, landed: () => landed };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setImmediate(r));
  expect(await check()).toBe(true);
}

describe('compaction across tabs', () => {
  test('a slow tab compacting the same records never overwrites a chunk another tab wrote', async () => {
    const { store } = freshStore();
    const all = makeAnswerEvents(COMPACT_AT + 100);
    const late = all.splice(300, 1)[0]!; // its time is inside the range the others cover
    await idbBackend(store).write([['meta', { schemaVersion: 2 }], ...all.map((e) => [`e:${e.id}`, e] as const)]);

    const slow = slowChunkWrites(idbBackend(store));
    const a = new Progress(slow.backend, quiet);
    await a.load();
    expect(slow.held()).toBe(1); // A has read the 600 singles; its compaction is on its way

    await idbBackend(store).write([[`e:${late.id}`, late]]);
    const b = new Progress(idbBackend(store), quiet);
    await b.load();
    expect(b.snapshot().events).toHaveLength(all.length + 1);
    await until(async () => (await rawAll(store)).every(([k]) => !k.startsWith('e:')));

    slow.release();
    await slow.landed();
    const c = new Progress(idbBackend(store), quiet);
    await c.load();
    expect(c.snapshot().events.map((e) => e.id)).toContain(late.id);
    expect(c.snapshot().events).toHaveLength(all.length + 1);
    expect(c.snapshot().quarantined).toEqual([]);
    for (const p of [a, b, c]) p.close();
  });

  test('chunk keys differ whenever their events differ, and agree when they are the same', () => {
    const events = makeAnswerEvents(10);
    const withoutOne = [...events.slice(0, 4), ...events.slice(5)];
    expect(chunkKey(events)).not.toBe(chunkKey(withoutOne));
    expect(chunkKey(events)).toBe(chunkKey([...events]));
    expect(chunkKey(events)).toMatch(/^c:[^#]+$/);
  });
});
