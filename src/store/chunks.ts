/**
 * Chunks: many events in one record, so a long log opens fast. Chromium reads 50,000 one-event
 * records in ~1.5 s but the same events in 10 records of 5,000 in ~0.25 s (bench/progress-browser.ts).
 *
 * Writes stay one event per key (`e:<id>`): two tabs never write the same key, so nothing is lost.
 * When a store opens with at least `COMPACT_AT` single events, it moves the ones it read into
 * chunks `c:<first id>~<last id>~<count>.<hash of every id>` and deletes those singles, in ONE
 * transaction (all or nothing). It deletes only keys it read, so an event another tab adds
 * meanwhile stays as it is. Two tabs compacting at once write either the same chunk (same events,
 * so the same key and content) or different keys: a chunk key names its events, so a slow tab's
 * chunk can never replace one holding an event it did not read (issue #20: with `c:<first>~<last>`
 * alone, a late event inside the range was lost that way). Readers take the union by id, so
 * overlapping chunks are harmless. A chunk item that fails validation is quarantined as
 * `<chunk key>#<index>` and the chunk is rewritten without it (the same events minus that one).
 */
import type { ProgressEvent } from '../schemas/progress-event.ts';

/** Single events that make an opening store compact them. */
export const COMPACT_AT = 500;
/** Events per chunk. */
export const CHUNK_SIZE = 5_000;
/** Most items a chunk record may hold when read (a larger array is quarantined whole). */
export const MAX_CHUNK_ITEMS = 20_000;

/**
 * A chunk's key, from its events: `c:<first id>~<last id>~<count>.<hash>`, where the hash (two
 * 32-bit FNV-1a over every id) tells apart chunks with the same ends but other events between.
 */
export function chunkKey(events: readonly { id: string }[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (const { id } of events) {
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    h1 = Math.imul(h1 ^ 0x7c, 0x01000193); // a separator, so ids "ab","c" differ from "a","bc"
    h2 = Math.imul(h2 ^ 0x7c, 0x5bd1e995);
  }
  const hash = `${(h1 >>> 0).toString(36)}${(h2 >>> 0).toString(36)}`;
  return `c:${events[0]!.id}~${events.at(-1)!.id}~${events.length}.${hash}`;
}
export const isChunkKey = (key: string) => key.startsWith('c:');

/**
 * The writes that compact `singles` (sorted events read from `e:` keys): chunk puts and the
 * single keys to delete. Nothing when there are fewer than `COMPACT_AT`.
 */
export function compaction(
  singles: readonly ProgressEvent[],
  keyOf: (id: string) => string,
): { puts: [string, ProgressEvent[]][]; dels: string[] } {
  if (singles.length < COMPACT_AT) return { puts: [], dels: [] };
  const puts: [string, ProgressEvent[]][] = [];
  for (let i = 0; i < singles.length; i += CHUNK_SIZE) {
    const part = singles.slice(i, i + CHUNK_SIZE);
    puts.push([chunkKey(part), part]);
  }
  return { puts, dels: singles.map((e) => keyOf(e.id)) };
}
