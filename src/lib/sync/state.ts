/**
 * What a device remembers about its sync (kept by src/store/sync-state.ts; pure here): where it is in the server's
 * order, which events the server already holds, the latest known version of each record, and the versions waiting
 * to be pushed (offline changes queue here). `parseSyncLocal` checks what is read back; anything else starts over
 * from the beginning, which costs a full pull but loses nothing (pull and push are idempotent).
 */
import { parseHlc, zeroHlc, type Hlc } from './hlc.ts';
import type { RecordVersion } from './items.ts';
import type { SmallItems } from './compact.ts';

/** The latest version of one record this device knows (its own or another device's). */
export interface KnownRecord {
  hlc: Hlc;
  /** The server item id of that version: dropped when a newer one wins. */
  itemId: string;
  /** `valueHash` of the value, or null for a tombstone. */
  hash: string | null;
}

export interface SyncLocal {
  v: 1;
  /** This device's random id in stamps. */
  node: string;
  clock: Hlc;
  /** The server's pull cursor ('' = from the start). */
  cursor: string;
  /** Ids of events the server holds (pushed from here or pulled). */
  sentEventIds: string[];
  records: Record<string, KnownRecord>;
  /** Record versions stamped here and not yet accepted by the server. */
  pending: RecordVersion[];
  /** Item ids of record versions beaten by newer ones: asked to be pruned with the next push. */
  drop: string[];
  /** Small event items this device knows of (item id → event ids), compacted once enough (compact.ts). A state
   * saved before compaction existed has none: read back as `{}`. */
  small: SmallItems;
  lastSyncAt: number | null;
  devices: number | null;
}

/** The state of a device that has not synced yet. */
export function freshSyncLocal(node: string): SyncLocal {
  return {
    v: 1,
    node,
    clock: zeroHlc(node),
    cursor: '',
    sentEventIds: [],
    records: {},
    pending: [],
    drop: [],
    small: {},
    lastSyncAt: null,
    devices: null,
  };
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const smallItems = (v: unknown): v is SmallItems =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(strings);

/** The stored state, checked; null when it is not one (start over). A missing or damaged `small` (a state saved by
 * an older release) is read as `{}`: the rest is kept, and only compaction of items known before is lost. */
export function parseSyncLocal(v: unknown): SyncLocal | null {
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Partial<SyncLocal>;
  if (s.v !== 1 || typeof s.node !== 'string' || !parseHlc(s.clock) || typeof s.cursor !== 'string') return null;
  if (!strings(s.sentEventIds) || !strings(s.drop) || !Array.isArray(s.pending)) return null;
  if (typeof s.records !== 'object' || s.records === null) return null;
  for (const r of Object.values(s.records)) if (!parseHlc(r?.hlc) || typeof r.itemId !== 'string') return null;
  return { ...(s as SyncLocal), small: smallItems(s.small) ? s.small : {} };
}

/**
 * A short hash of a value's JSON (FNV-1a, 32-bit, with the length): tells whether a record changed since it was
 * last stamped. Not a security measure; a collision only delays one record's sync to its next change.
 * @example valueHash({ goal: 10 }) // "b:558ii5"
 */
export function valueHash(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${text.length.toString(36)}:${(h >>> 0).toString(36)}`;
}
