/**
 * How two devices' progress merges without asking (pure). The event log is a union by id (undo is itself an event,
 * so an undone answer stays undone everywhere); records are last-writer-wins by hybrid logical clock (hlc.ts), and a
 * tombstone is a version like any other, so a delete travels and beats older values.
 * Both are commutative, associative and idempotent (property-tested in test/unit/sync-merge.test.ts).
 */
import { compareHlc } from './hlc.ts';
import type { RecordVersion } from './items.ts';

/**
 * The union of two logs by id, ordered by (at, id). Where both hold an id, the first log's copy is kept
 * (ids are unique per event, so both copies are the same event).
 * @example mergeEvents([{ id: '1-a', at: 1 }], [{ id: '2-b', at: 2 }]) // both
 */
export function mergeEvents<E extends { id: string; at: number }>(a: readonly E[], b: readonly E[]): E[] {
  const byId = new Map<string, E>();
  for (const e of a) if (!byId.has(e.id)) byId.set(e.id, e);
  for (const e of b) if (!byId.has(e.id)) byId.set(e.id, e);
  return [...byId.values()].sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/** The winner of two versions of one record: the later stamp. */
export function newerVersion(a: RecordVersion, b: RecordVersion): RecordVersion {
  return compareHlc(a.hlc, b.hlc) >= 0 ? a : b;
}

/** Merges two sets of record versions (key → latest version): per key, the later stamp wins. */
export function mergeRecords(
  a: ReadonlyMap<string, RecordVersion>,
  b: ReadonlyMap<string, RecordVersion>,
): Map<string, RecordVersion> {
  const out = new Map(a);
  for (const [key, v] of b) {
    const mine = out.get(key);
    out.set(key, mine ? newerVersion(mine, v) : v);
  }
  return out;
}

/** The live records (tombstones left out): what a device shows after a merge. */
export function liveRecords(records: ReadonlyMap<string, RecordVersion>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, v] of records) if (!v.deleted) out.set(key, v.value);
  return out;
}
