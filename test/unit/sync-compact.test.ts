/** Compaction of small event items, the pure planning (src/lib/sync/compact.ts): what a device remembers, when it
 * compacts, which items one push request may drop, and that no event is ever lost. */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import {
  COMPACT_LIMITS,
  dropsFor,
  eventsToPack,
  noteItems,
  planCompaction,
  type EventItem,
  type SmallItems,
} from '../../src/lib/sync/compact.ts';
import { packEvents } from '../../src/lib/sync/batch.ts';
import { freshSyncLocal, parseSyncLocal } from '../../src/lib/sync/state.ts';

/** `n` items of `per` events each: item `i<k>` holds events `e<k>-0` … */
const items = (n: number, per = 1, from = 0): EventItem[] =>
  Array.from({ length: n }, (_, k) => ({
    id: `i${k + from}`,
    eventIds: Array.from({ length: per }, (_, j) => `e${k + from}-${j}`),
  }));
const heldAll = (xs: EventItem[]) => new Set(xs.flatMap((x) => x.eventIds));

describe('what a device remembers', () => {
  test('items of fewer than 50 events, not larger ones; an item holding every event of a remembered one makes it forgotten', () => {
    const small = noteItems({}, [...items(2), { id: 'big', eventIds: items(1, 50, 9)[0]!.eventIds }]);
    expect(small).toEqual({ i0: ['e0-0'], i1: ['e1-0'] });
    // Another device compacted i0 (and an event of its own) into one batch: i0 is forgotten, i1 is not.
    const after = noteItems(small, [{ id: 'batch', eventIds: ['e0-0', 'x'] }]);
    expect(after).toEqual({ i1: ['e1-0'], batch: ['e0-0', 'x'] });
    // A batch holding only some of an item's events forgets nothing.
    expect(noteItems({ p: ['a', 'b'] }, [{ id: 'q', eventIds: ['a', 'c'] }])).toEqual({ p: ['a', 'b'], q: ['a', 'c'] });
    // The same item pulled again (its own id) stays.
    expect(noteItems({ p: ['a'] }, [{ id: 'p', eventIds: ['a'] }])).toEqual({ p: ['a'] });
  });

  test('at most maxItems items and maxEventIds event ids', () => {
    const limits = { ...COMPACT_LIMITS, maxItems: 3, maxEventIds: 5 };
    expect(Object.keys(noteItems({}, items(5), limits))).toEqual(['i0', 'i1', 'i2']);
    expect(Object.keys(noteItems({}, items(5, 2), limits))).toEqual(['i0', 'i1']);
  });

  test('a state saved before compaction existed is read back whole, with no small items; a damaged field is dropped alone', () => {
    const old = { ...freshSyncLocal('me'), sentEventIds: ['1-a'], cursor: '7' } as Partial<
      ReturnType<typeof freshSyncLocal>
    >;
    delete old.small;
    expect(parseSyncLocal(JSON.parse(JSON.stringify(old)))).toEqual({ ...old, small: {} });
    expect(parseSyncLocal({ ...old, small: { x: [1] } })).toEqual({ ...old, small: {} });
    const now = { ...freshSyncLocal('me'), small: { x: ['a'] } };
    expect(parseSyncLocal(JSON.parse(JSON.stringify(now)))).toEqual(now);
  });
});

describe('when a device compacts', () => {
  const toSmall = (xs: EventItem[]): SmallItems => Object.fromEntries(xs.map((x) => [x.id, [...x.eventIds]]));

  test('due at 200 small items, or at 1,000 of their events, not before', () => {
    const n = COMPACT_LIMITS.minItems;
    expect(planCompaction(toSmall(items(n - 1)), heldAll(items(n - 1))).items).toEqual([]);
    expect(planCompaction(toSmall(items(n)), heldAll(items(n))).items).toHaveLength(n);
    // 100 items of 10 events: 1,000 events.
    expect(planCompaction(toSmall(items(99, 10)), heldAll(items(99, 10))).items).toEqual([]);
    expect(planCompaction(toSmall(items(100, 10)), heldAll(items(100, 10))).items).toHaveLength(100);
  });

  test('an item with an event this device does not hold is forgotten, never compacted', () => {
    const all = items(250);
    const held = heldAll(all);
    held.delete('e7-0');
    const plan = planCompaction(toSmall(all), held);
    expect(plan.forget).toEqual(['i7']);
    expect(plan.items.map((i) => i.id)).not.toContain('i7');
    expect(plan.items).toHaveLength(249);
    // Not due, still forgotten.
    expect(planCompaction({ i7: ['e7-0'] }, held)).toEqual({ items: [], forget: ['i7'] });
  });

  test('at most perSync items a sync, oldest first', () => {
    const all = items(COMPACT_LIMITS.perSync + 10);
    const plan = planCompaction(toSmall(all), heldAll(all));
    expect(plan.items.map((i) => i.id)).toEqual(all.slice(0, COMPACT_LIMITS.perSync).map((i) => i.id));
  });

  test('a request drops exactly the items whose every event its batches hold, and not one equal to a batch', () => {
    const compacted = [
      { id: 'a', eventIds: ['1', '2'] },
      { id: 'b', eventIds: ['3', '4'] },
      { id: 'same', eventIds: ['5'] },
    ];
    // Event 4 went into the next request's batch: b is dropped by neither request alone.
    expect(
      dropsFor(compacted, [
        { id: 'x', eventIds: ['1', '2', '3'] },
        { id: 'same', eventIds: ['5'] },
      ]),
    ).toEqual(['a']);
    expect(dropsFor(compacted, [{ id: 'y', eventIds: ['4', '9'] }])).toEqual([]);
  });

  test('events packed: those not yet sent and those of the compacted items, once each, in the log order', () => {
    const log = ['1', '2', '3', '4', '5'].map((id) => ({ id }));
    expect(eventsToPack(log, new Set(['1', '2', '3', '4']), [{ id: 'a', eventIds: ['4', '2'] }])).toEqual([
      { id: '2' },
      { id: '4' },
      { id: '5' },
    ]);
  });
});

describe('no event is ever lost', () => {
  test('any remembered items, any held subset, any split of batches into requests: after every request the server holds every event it held before', () => {
    const arb = fc.record({
      sizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 40 }),
      missing: fc.array(fc.nat(200), { maxLength: 5 }),
      perBatch: fc.integer({ min: 1, max: 7 }),
      perRequest: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(arb, ({ sizes, missing, perBatch, perRequest }) => {
        let n = 0;
        const stored = sizes.map((s, k) => ({ id: `s${k}`, eventIds: Array.from({ length: s }, () => `e${n++}`) }));
        const server = new Map(stored.map((i) => [i.id, i.eventIds]));
        const log = Array.from({ length: n }, (_, k) => ({ id: `e${k}` })).filter((_, k) => !missing.includes(k));
        const limits = { ...COMPACT_LIMITS, minItems: 1 };
        const small = noteItems({}, stored, limits);
        const plan = planCompaction(small, new Set(log.map((e) => e.id)), limits);
        const runs = packEvents(eventsToPack(log, new Set(log.map((e) => e.id)), plan.items), 1e9, perBatch);
        const batches = runs.map((r) => ({ id: `b:${r.map((e) => e.id).join(',')}`, eventIds: r.map((e) => e.id) }));
        const before = new Set([...server.values()].flat());
        for (let i = 0; i < batches.length; i += perRequest) {
          const request = batches.slice(i, i + perRequest);
          for (const id of dropsFor(plan.items, request)) server.delete(id);
          for (const b of request) if (!server.has(b.id)) server.set(b.id, b.eventIds);
          const now = new Set([...server.values()].flat());
          for (const e of before) if (!now.has(e)) return false;
        }
        // Items with a missing event were never dropped.
        return plan.forget.every((id) => server.has(id));
      }),
    );
  });
});
