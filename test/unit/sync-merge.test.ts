import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { compareHlc, receive, send, zeroHlc, type Hlc } from '../../src/lib/sync/hlc.ts';
import { liveRecords, mergeEvents, mergeRecords } from '../../src/lib/sync/merge.ts';
import type { RecordVersion } from '../../src/lib/sync/items.ts';
import { eventsToPush, stampLocalChanges, takeRemoteRecords } from '../../src/lib/sync/plan.ts';
import { freshSyncLocal, parseSyncLocal } from '../../src/lib/sync/state.ts';

const T0 = Date.parse('2026-12-02T12:00:00Z');
const hlcArb = fc.record({ wall: fc.nat(1000), counter: fc.nat(5), node: fc.constantFrom('a', 'b', 'c') });
const eventArb = fc.record({ id: fc.stringMatching(/^[0-9]{1,2}-[a-c]$/), at: fc.nat(99) }).map((e) => ({
  ...e,
  id: `${e.at}-${e.id.split('-')[1]}`,
}));
const versionArb: fc.Arbitrary<RecordVersion> = fc.oneof(
  fc.record({ key: fc.constantFrom('rhythm', 'quiz:a', 'quiz:b'), hlc: hlcArb, value: fc.nat(9) }),
  fc.record({ key: fc.constantFrom('rhythm', 'quiz:a', 'quiz:b'), hlc: hlcArb, deleted: fc.constant(true as const) }),
);
// One device never stamps two versions with one HLC: make stamps unique per (hlc) across the set.
const recordsArb = fc.array(versionArb, { maxLength: 8 }).map((vs) => new Map(vs.map((v) => [v.key, v] as const)));
const uniqueVersions = (a: Map<string, RecordVersion>, b: Map<string, RecordVersion>) =>
  [...a.values()].every((x) => [...b.values()].every((y) => compareHlc(x.hlc, y.hlc) !== 0 || x === y));

describe('merge: events by union of id', () => {
  test('is commutative, associative and idempotent, and loses nothing', () => {
    fc.assert(
      fc.property(fc.array(eventArb), fc.array(eventArb), fc.array(eventArb), (a, b, c) => {
        const ab = mergeEvents(a, b);
        expect(ab.map((e) => e.id)).toEqual(mergeEvents(b, a).map((e) => e.id));
        expect(mergeEvents(ab, c).map((e) => e.id)).toEqual(mergeEvents(a, mergeEvents(b, c)).map((e) => e.id));
        expect(mergeEvents(ab, ab)).toEqual(ab);
        expect(new Set(ab.map((e) => e.id))).toEqual(new Set([...a, ...b].map((e) => e.id)));
      }),
    );
  });
});

describe('merge: records last-writer-wins by HLC', () => {
  test('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(recordsArb, recordsArb, recordsArb, (a, b, c) => {
        fc.pre(uniqueVersions(a, b) && uniqueVersions(b, c) && uniqueVersions(a, c));
        const ab = mergeRecords(a, b);
        expect(ab).toEqual(mergeRecords(b, a));
        expect(mergeRecords(ab, c)).toEqual(mergeRecords(a, mergeRecords(b, c)));
        expect(mergeRecords(ab, ab)).toEqual(ab);
      }),
    );
  });

  test('a delete travels: a tombstone newer than the value removes the record everywhere', () => {
    const value: RecordVersion = { key: 'quiz:a', hlc: { wall: 5, counter: 0, node: 'a' }, value: { index: 3 } };
    const tomb: RecordVersion = { key: 'quiz:a', hlc: { wall: 6, counter: 0, node: 'b' }, deleted: true };
    const merged = mergeRecords(new Map([['quiz:a', value]]), new Map([['quiz:a', tomb]]));
    expect(liveRecords(merged).has('quiz:a')).toBe(false);
  });
});

describe('hybrid logical clock', () => {
  test('never goes back, whatever the wall clock does (a phone set a day back included)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -86_400_000, max: 60_000 }).map((d) => ({ d })),
            hlcArb.map((r) => ({ r })),
          ),
          {
            maxLength: 40,
          },
        ),
        (steps) => {
          let clock: Hlc = zeroHlc('me');
          let now = T0;
          for (const s of steps) {
            const next = 'd' in s ? send(clock, (now += s.d)) : receive(clock, { ...s.r, wall: T0 + s.r.wall }, now);
            expect(compareHlc(next, clock)).toBeGreaterThan(0);
            if ('r' in s) expect(compareHlc(next, { ...s.r, wall: T0 + s.r.wall })).toBeGreaterThan(0);
            clock = next;
          }
        },
      ),
    );
  });

  test('a device whose clock is an hour behind still wins with a change made after it saw the other', () => {
    const laptop = send(zeroHlc('laptop'), T0);
    const phone = send(receive(zeroHlc('phone'), laptop, T0 - 3_600_000), T0 - 3_600_000 + 1);
    expect(compareHlc(phone, laptop)).toBeGreaterThan(0);
  });
});

describe('one sync, step by step', () => {
  test('a changed record is stamped once; unchanged, nothing; removed, a tombstone', () => {
    let s = freshSyncLocal('me');
    s = stampLocalChanges(s, new Map([['rhythm', { goal: 10 }]]), T0);
    expect(s.pending).toHaveLength(1);
    s = { ...s, pending: [] };
    expect(stampLocalChanges(s, new Map([['rhythm', { goal: 10 }]]), T0 + 1).pending).toEqual([]);
    const gone = stampLocalChanges(s, new Map(), T0 + 2);
    expect(gone.pending).toEqual([{ key: 'rhythm', hlc: { wall: T0 + 2, counter: 0, node: 'me' }, deleted: true }]);
  });

  test('a newer remote version is applied and the older one dropped; an older one is dropped and not applied', () => {
    let s = stampLocalChanges(freshSyncLocal('me'), new Map([['rhythm', { goal: 10 }]]), T0);
    s.records['rhythm']!.itemId = 'mine';
    s = { ...s, pending: [] };
    const newer = { key: 'rhythm', hlc: { wall: T0 + 5, counter: 0, node: 'other' }, value: { goal: 30 } };
    const r = takeRemoteRecords(s, [{ itemId: 'theirs', version: newer }], T0 + 1);
    expect(r.apply).toEqual([newer]);
    expect(r.state.drop).toEqual(['mine']);
    const older = { key: 'rhythm', hlc: { wall: T0 - 5, counter: 0, node: 'other' }, value: { goal: 1 } };
    const r2 = takeRemoteRecords(r.state, [{ itemId: 'old', version: older }], T0 + 2);
    expect(r2.apply).toEqual([]);
    expect(r2.state.drop).toEqual(['mine', 'old']);
    expect(compareHlc(r2.state.clock, newer.hlc)).toBeGreaterThan(0);
  });

  test('a local change not yet pushed that lost to a newer remote one is not pushed', () => {
    const s = stampLocalChanges(freshSyncLocal('me'), new Map([['rhythm', { goal: 10 }]]), T0);
    const newer = { key: 'rhythm', hlc: { wall: T0 + 9, counter: 0, node: 'other' }, value: { goal: 30 } };
    expect(takeRemoteRecords(s, [{ itemId: 'x', version: newer }], T0).state.pending).toEqual([]);
  });

  test('events to push are those the server does not hold; state read back is checked', () => {
    const s = { ...freshSyncLocal('me'), sentEventIds: ['1-a'] };
    expect(eventsToPush(s, [{ id: '1-a' }, { id: '2-b' }])).toEqual([{ id: '2-b' }]);
    expect(parseSyncLocal(JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(parseSyncLocal({ ...s, clock: 'x' })).toBeNull();
  });
});
