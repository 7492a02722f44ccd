/**
 * The steps of one sync, pure over `SyncLocal` (state.ts): stamp what changed here, take in what other devices
 * pushed (records: last writer wins by HLC; tombstones travel), and pick the events the server does not hold yet.
 * src/client/sync/engine.ts does the I/O around them.
 */
import { compareHlc, receive, send } from './hlc.ts';
import type { RecordVersion } from './items.ts';
import { valueHash, type SyncLocal } from './state.ts';

/**
 * Stamps a version for every record whose value differs from the latest known one, and a tombstone for every
 * record that was here and is gone. `current`: key → value of the records on this device now.
 */
export function stampLocalChanges(state: SyncLocal, current: ReadonlyMap<string, unknown>, now: number): SyncLocal {
  let clock = state.clock;
  const pending = [...state.pending];
  const records = { ...state.records };
  const stamp = (version: (hlc: SyncLocal['clock']) => RecordVersion, hash: string | null) => {
    clock = send(clock, now);
    const v = version(clock);
    pending.push(v);
    records[v.key] = { hlc: clock, itemId: '', hash };
  };
  for (const [key, value] of current) {
    const hash = valueHash(value);
    if (records[key]?.hash !== hash) stamp((hlc) => ({ key, hlc, value }), hash);
  }
  for (const [key, known] of Object.entries(state.records))
    if (known.hash !== null && !current.has(key)) stamp((hlc) => ({ key, hlc, deleted: true }), null);
  return { ...state, clock, pending, records };
}

/** Remote record versions with their item ids, as pulled. */
export interface PulledVersion {
  itemId: string;
  version: RecordVersion;
}

/**
 * Takes in pulled record versions: each newer than the known one wins (and is returned in `apply`, to write on this
 * device); each beaten version's item id goes to `drop`. The clock moves past every stamp seen.
 */
export function takeRemoteRecords(
  state: SyncLocal,
  pulled: readonly PulledVersion[],
  now: number,
): { state: SyncLocal; apply: RecordVersion[] } {
  let clock = state.clock;
  const records = { ...state.records };
  const drop = [...state.drop];
  const winners = new Map<string, RecordVersion>();
  for (const { itemId, version } of pulled) {
    clock = receive(clock, version.hlc, now);
    const known = records[version.key];
    if (known && compareHlc(known.hlc, version.hlc) >= 0) {
      if (known.itemId !== itemId) drop.push(itemId);
      continue;
    }
    if (known?.itemId) drop.push(known.itemId);
    records[version.key] = { hlc: version.hlc, itemId, hash: version.deleted ? null : valueHash(version.value) };
    winners.set(version.key, version);
  }
  // A pending local version that lost is not pushed: the winner is already on the server.
  const pending = state.pending.filter((p) => compareHlc(p.hlc, records[p.key]!.hlc) >= 0);
  return { state: { ...state, clock, records, drop, pending }, apply: [...winners.values()] };
}

/** The events of `events` the server does not hold yet, oldest first. */
export function eventsToPush<E extends { id: string }>(state: SyncLocal, events: readonly E[]): E[] {
  const sent = new Set(state.sentEventIds);
  return events.filter((e) => !sent.has(e.id));
}
