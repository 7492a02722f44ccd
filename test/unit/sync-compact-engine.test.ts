/**
 * Compaction of small event items through the real engine (`syncOnce`) and the real sync server (SQLite): a learner
 * whose device syncs after every answer or two leaves a history of small items; once compacted, a new device's
 * first pull holds a few batches instead, and two devices compacting at once lose nothing.
 */
import 'fake-indexeddb/auto';
import { describe, expect, test, vi } from 'vitest';
import { syncOnce } from '../../src/client/sync/engine.ts';
import { COMPACT_LIMITS, type CompactLimits } from '../../src/lib/sync/compact.ts';
import { packEvents } from '../../src/lib/sync/batch.ts';
import { decryptItem, encryptItem } from '../../src/lib/sync/items.ts';
import type { StoredItem } from '../../src/protocol/sync.ts';
import { T0 } from './store-helpers.ts';
import { device, realServer } from './sync-devices.ts';

// A loaded machine runs ~160 syncs over HTTP with IndexedDB writes slowly.
vi.setConfig({ testTimeout: 240_000 });

type Device = Awaited<ReturnType<typeof device>>;

/** Holds each device's pushes until all have pulled and planned theirs: two compactions at the same time. A device
 * that never pushes (nothing to compact) lets the others go after 30 s, and the test's checks then fail. */
function pushTogether(devices: Device[]) {
  let waiting = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  const restore = devices.map((d) => {
    const api = d.deps.api;
    d.deps.api = {
      ...api,
      push: async (body) => {
        if (++waiting === devices.length) release();
        await Promise.race([all, new Promise((r) => setTimeout(r, 30_000))]);
        return api.push(body);
      },
    };
    return () => (d.deps.api = api);
  });
  return () => restore.forEach((r) => r());
}

describe('compaction of small event items', () => {
  test('300 answers pushed one to three at a time: once compacted (two devices at once), a new device pulls a few batches and all 300; every device ends with the same 300', async () => {
    const server = await realServer();
    // Compaction held off while the history builds up, then due at 100 small items (the default is 200; the
    // numbers are checked by sync-compact.test.ts): the same code paths, a fifth of the syncs.
    const limits: CompactLimits = { ...COMPACT_LIMITS, minItems: Infinity, minEvents: Infinity };
    const a = await device(server, 'A');
    const b = await device(server, 'B');
    a.deps.compaction = b.deps.compaction = limits;
    let answered = 0;
    let syncs = 0;
    while (answered < 298) {
      for (let k = 0; k <= syncs % 3 && answered < 298; k++) await a.answer(`q-${answered}`, T0 + answered++ * 10_000);
      await syncOnce(a.deps);
      if (++syncs % 10 === 0) await syncOnce(b.deps);
    }
    await syncOnce(b.deps);
    const smallItems = (await server.items()).length;
    expect(smallItems).toBe(syncs);
    const known = new Set(Object.keys((await b.deps.readLocal()).small));
    expect(known.size).toBe(syncs);

    // A answers twice more (its batches differ from B's); both compact in the same moment.
    for (; answered < 300; answered++) await a.answer(`q-${answered}`, T0 + answered * 10_000);
    limits.minItems = 100;
    const together = pushTogether([a, b]);
    const [ra, rb] = await Promise.all([syncOnce(a.deps), syncOnce(b.deps)]);
    together();
    expect(ra.pushed).toBe(2); // new answers; the events packed again are not counted as sent
    expect(rb.pushed).toBe(0);
    // Each forgot the small items it dropped; what it remembers now is at most its own last, short batch (which
    // may be one of the old items: the same events give the same id, so it was not dropped).
    for (const d of [a, b]) expect(Object.keys((await d.deps.readLocal()).small).length).toBeLessThanOrEqual(1);

    // A new device's first pull: the batches of A and of B, nothing else, and every answer.
    const c = await device(server, 'C');
    const first = await syncOnce(c.deps);
    const batches = packEvents(a.progress.snapshot().events).length;
    expect(first.pulled).toBeLessThanOrEqual(2 * batches);
    expect(first.pulled).toBeLessThan(smallItems / 10);
    expect(c.progress.snapshot().answers).toHaveLength(300);
    const stored = await server.items();
    const held = await Promise.all(stored.map((it) => decryptItem(a.deps.keys, it as StoredItem)));
    expect(new Set(held.flatMap((p) => ('events' in p ? p.events.map((e) => (e as { id: string }).id) : [])))).toEqual(
      new Set(a.progress.snapshot().events.map((e) => e.id)),
    );

    await syncOnce(b.deps);
    await syncOnce(a.deps);
    const ids = (d: Device) => d.progress.snapshot().events.map((e) => e.id);
    for (const d of [a, b, c]) expect(d.progress.snapshot().answers).toHaveLength(300);
    expect(ids(b)).toEqual(ids(a));
    expect(ids(c)).toEqual(ids(a));
    // Pulling the other's batches made each forget nothing it still needs: nothing left to compact.
    for (const d of [a, b, c]) expect(Object.keys((await d.deps.readLocal()).small).length).toBeLessThan(3);
  });

  test('an item whose events a device could not take in (damaged) is never dropped; the others are packed and dropped', async () => {
    const server = await realServer();
    const a = await device(server, 'A');
    a.deps.compaction = { ...COMPACT_LIMITS, minItems: 3 };
    for (let i = 0; i < 4; i++) await a.answer(`q-${i}`, T0 + i * 10_000);
    // What an older or buggy device left: one item an answer, and one item of an event no release can read.
    const bad = { id: `${T0}-damaged`, type: 'not-an-event' };
    const small = await Promise.all(
      [...a.progress.snapshot().events.map((e) => [e]), [bad]].map((run) =>
        encryptItem(a.deps.keys, { kind: 'events', events: run }),
      ),
    );
    await a.deps.api.push({ items: small });
    const report = await syncOnce(a.deps);
    expect(report.skipped).toBeGreaterThan(0);
    const stored = await server.items();
    const held = await Promise.all(stored.map((it) => decryptItem(a.deps.keys, it as StoredItem)));
    const runs = held.map((p) => ('events' in p ? p.events.map((e) => (e as { id: string }).id) : []));
    // The damaged item stays as it was; the four answers are in one new batch; their small items are gone.
    expect(stored.map((it) => (it as StoredItem).id)).toContain(small[4]!.id);
    expect(runs).toContainEqual([bad.id]);
    expect(runs).toContainEqual(a.progress.snapshot().events.map((e) => e.id));
    expect(stored).toHaveLength(2);
  });
});
