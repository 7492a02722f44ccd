/**
 * The log snapshot (`cache:log`): every event of the chunks, already validated, as ONE compact string,
 * so a warm open reads one record instead of tens of thousands of objects and does not validate
 * each event again. Derived data, like `cache:schedule`: the chunks stay the truth.
 *
 * Stored shape (v2): { v: 2, chunks: [chunk key, ...] (sorted), count, text: the events, sorted, in
 * columns (log-codec.ts: ~3.3 MB for 50,000 answers where v1's JSON of each event was ~11 MB) }.
 * A v1 snapshot (an earlier release) is ignored like any other it cannot use, and rewritten as v2.
 * - Written (in the background, quietly) after an open that read a chunk the snapshot did not cover.
 * - Used only when every chunk it names is still stored (a chunk key names its events: chunks.ts);
 *   chunks it does not name are read and validated as usual. A snapshot that fails its checks (not
 *   this shape, text that is not JSON or holds another number of events, an item without an event's
 *   id, time and type) or names a chunk no longer stored is ignored and every record is read, so a
 *   stale or corrupt snapshot costs time, never progress.
 * Why a string: Chromium's IndexedDB deserializes one string far faster than 50,000 objects, and
 * JSON.parse is faster than either; fewer bytes are faster still (bench/progress-browser.ts).
 */
import type { ProgressEvent } from '../schemas/progress-event.ts';
import { compareEvents, EVENT_ID_PATTERN } from '../schemas/progress-event.ts';
import { isChunkKey } from './chunks.ts';
import { decodeLog, encodeLog } from './log-codec.ts';
import type { Skip } from './backend.ts';

export const LOG_KEY = 'cache:log';

export interface LogSnapshot {
  v: 2;
  chunks: string[];
  count: number;
  text: string;
}

/** What a usable snapshot gives the open: the chunks not to read, and their events (sorted). */
export interface TrustedLog {
  chunks: ReadonlySet<string>;
  events: ProgressEvent[];
}

const isEventLike = (x: unknown): boolean => {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as { id?: unknown; at?: unknown; type?: unknown };
  return (
    typeof e.id === 'string' && EVENT_ID_PATTERN.test(e.id) && typeof e.at === 'number' && typeof e.type === 'string'
  );
};

/**
 * The snapshot's events if it can be trusted with the chunk keys now stored (`storedKeys`), else
 * null (then every record is read and validated).
 */
export function trustedLog(raw: unknown, storedKeys: readonly string[]): TrustedLog | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const s = raw as Partial<LogSnapshot>;
  if (s.v !== 2 || !Array.isArray(s.chunks) || !Number.isInteger(s.count) || typeof s.text !== 'string') return null;
  if (!s.chunks.every((k) => typeof k === 'string' && isChunkKey(k))) return null;
  const stored = new Set(storedKeys);
  if (!s.chunks.every((k) => stored.has(k))) return null; // a chunk was rewritten or removed since
  let events: unknown;
  try {
    events = decodeLog(s.text);
  } catch {
    return null;
  }
  if (!Array.isArray(events) || events.length !== s.count || !events.every(isEventLike)) return null;
  // Strictly in (at, id) order, as written: sorted, and no event twice.
  for (let i = 1; i < events.length; i++) if (compareEvents(events[i - 1], events[i]) >= 0) return null;
  return { chunks: new Set(s.chunks), events: events as ProgressEvent[] };
}

/** The record to store for these chunk keys and their validated events (sorted by (at, id)). */
export function logSnapshotRecord(chunkKeys: readonly string[], events: readonly ProgressEvent[]): LogSnapshot {
  return { v: 2, chunks: [...chunkKeys].sort(), count: events.length, text: encodeLog(events) };
}

/** Whether the stored snapshot already covers exactly these chunks (nothing to rewrite). */
export function coversExactly(trusted: TrustedLog | null, chunkKeys: readonly string[]): boolean {
  return trusted !== null && trusted.chunks.size === chunkKeys.length && chunkKeys.every((k) => trusted.chunks.has(k));
}

/**
 * The snapshot to write after an open, or null when the stored one still covers every chunk: with
 * a compaction it names the new chunks too (written in the same transaction: if that fails, the
 * snapshot names chunks that are not stored and is ignored). `compactedSingles`: the single events
 * just moved into `newChunkKeys`.
 */
export function snapshotAfterOpen(
  read: { chunkKeys: readonly string[]; chunkEvents: readonly ProgressEvent[] },
  trusted: TrustedLog | null,
  newChunkKeys: readonly string[] = [],
  compactedSingles: readonly ProgressEvent[] = [],
): LogSnapshot | null {
  if (newChunkKeys.length === 0)
    return read.chunkKeys.length && !coversExactly(trusted, read.chunkKeys)
      ? logSnapshotRecord(read.chunkKeys, read.chunkEvents)
      : null;
  const inChunks = new Set(read.chunkEvents.map((e) => e.id));
  const events = [...read.chunkEvents, ...compactedSingles.filter((e) => !inChunks.has(e.id))].sort(compareEvents);
  return logSnapshotRecord([...read.chunkKeys, ...newChunkKeys], events);
}

/** A read that leaves out the chunks a trusted snapshot covers (kv.ts `readAllWithin`); `trusted` once it ran. */
export interface SnapshotReader {
  firstKey: string;
  skip: Skip;
  trusted: TrustedLog | null;
}

/** A fresh reader for one open. */
export function snapshotReader(): SnapshotReader {
  const reader: SnapshotReader = {
    firstKey: LOG_KEY,
    trusted: null,
    skip: (keys, first) => {
      reader.trusted = trustedLog(first, keys.filter(isChunkKey));
      return reader.trusted?.chunks ?? new Set<string>();
    },
  };
  return reader;
}
