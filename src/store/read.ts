/**
 * Reading the store's records back: validate every one (events, chunks, meta, quarantine, cache,
 * the v1 record), decide what to quarantine and migrate. Pure: the caller writes `puts`/`dels`.
 * See progress.ts for the key layout and chunks.ts for chunks.
 */
import { CACHE_KEY } from './cache.ts';
import { isChunkKey, MAX_CHUNK_ITEMS } from './chunks.ts';
import { CURRENT_SCHEMA_VERSION, migrateV1, V1_KEY } from './migrations.ts';
import {
  compareEvents,
  describeIssues,
  MetaSchema,
  QuarantineSchema,
  type Meta,
  type ProgressEvent,
  type QuarantinedRecord,
} from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';

import { eventKey } from './record.ts';
import { LOG_KEY, type TrustedLog } from './log-snapshot.ts';

export { eventKey };

/** What the records hold, and the writes that tidy them up. */
export interface ReadResult {
  /** Every valid event once (a union by id over singles and chunks), unsorted. */
  events: ProgressEvent[];
  /** The valid events read from single `e:` keys (to compact). */
  singles: ProgressEvent[];
  /** Records failing validation now, plus those quarantined before. */
  quarantined: QuarantinedRecord[];
  puts: [string, unknown][];
  dels: string[];
  meta: { success: true; data: Meta } | { success: false };
  /** Written by a newer release (`meta.schemaVersion` above ours): read, never changed. */
  newer: boolean;
  cacheRaw: unknown;
  /** The chunks stored and kept (read, or covered by the log snapshot), and their events once each, sorted. */
  chunkKeys: string[];
  chunkEvents: ProgressEvent[];
}

/** Classifies every [key, value] read from the store. `clock` stamps quarantines; `tz` dates v1 records. */
export function readRecords(
  entries: readonly [string, unknown][],
  clock: () => number,
  tz: string,
  trusted: TrustedLog | null = null,
): ReadResult {
  const events: ProgressEvent[] = [];
  const seen = new Set<string>();
  const singles: ProgressEvent[] = [];
  const chunkKeys: string[] = trusted ? [...trusted.chunks] : [];
  // Validated, unique and sorted when the snapshot was written (log-snapshot.ts); its chunks are not in `entries`.
  const chunkEvents: ProgressEvent[] = trusted ? trusted.events : [];
  for (const e of chunkEvents) {
    seen.add(e.id);
    events.push(e);
  }
  let inChunks: Set<string> | null = null; // built only when a chunk is read too
  const keep = (e: ProgressEvent) => {
    if (seen.has(e.id)) return; // in a chunk and a single, or two chunks: the union by id
    seen.add(e.id);
    events.push(e);
  };
  const keepFromChunk = (e: ProgressEvent) => {
    keep(e);
    inChunks ??= new Set(chunkEvents.map((c) => c.id));
    if (inChunks.has(e.id)) return;
    inChunks.add(e.id);
    chunkEvents.push(e);
  };
  const quarantined: QuarantinedRecord[] = [];
  const puts: [string, unknown][] = [];
  const dels: string[] = [];
  const quarantine = (key: string, value: unknown, reason: string) => {
    const q: QuarantinedRecord = { key, value, reason, quarantinedAt: clock() };
    quarantined.push(q);
    puts.push([`q:${key}`, q]);
    if (!key.includes('#')) dels.push(key);
  };
  const metaRaw = entries.find(([k]) => k === 'meta')?.[1];
  const meta = MetaSchema.safeParse(metaRaw);
  // Newer as soon as the version says so, whatever else `meta` holds: a newer release may have
  // changed any other field, and nothing of its database is rewritten, quarantined or deleted here.
  const version = (metaRaw as { schemaVersion?: unknown } | undefined)?.schemaVersion;
  const newer = typeof version === 'number' && version > CURRENT_SCHEMA_VERSION;
  let cacheRaw: unknown;
  for (const [key, value] of entries) {
    if (key.startsWith('e:')) {
      const e = parseEvent(value);
      if (e.success && eventKey(e.data.id) === key) {
        keep(e.data);
        singles.push(e.data);
      } else if (!newer)
        quarantine(key, value, e.success ? `stored under ${key} but its id is ${e.data.id}` : describeIssues(e.error));
    } else if (isChunkKey(key)) {
      if (!Array.isArray(value) || value.length > MAX_CHUNK_ITEMS) {
        if (!newer) quarantine(key, value, `a chunk must be a list of at most ${MAX_CHUNK_ITEMS} events`);
        continue;
      }
      const good: ProgressEvent[] = [];
      value.forEach((item: unknown, i) => {
        const e = parseEvent(item);
        if (e.success) {
          good.push(e.data);
          keepFromChunk(e.data);
        } else if (!newer) quarantine(`${key}#${i}`, item, describeIssues(e.error));
      });
      if (good.length) chunkKeys.push(key);
      if (good.length < value.length && !newer) {
        if (good.length)
          puts.push([key, good]); // the chunk without what was quarantined
        else dels.push(key);
      }
    } else if (key.startsWith('q:cache:')) {
      if (!newer) dels.push(key); // a cache set aside by an older release: derived data, rebuilt
    } else if (key.startsWith('q:')) {
      const q = QuarantineSchema.safeParse(value);
      // Set aside by an older release for what this one accepts (e.g. a late answer's time, now
      // clamped): it counts again, as a single record, and leaves the quarantine.
      const now = q.success && !newer ? parseEvent(q.data.value) : null;
      if (now?.success) {
        if (!seen.has(now.data.id)) {
          keep(now.data);
          singles.push(now.data);
          puts.push([eventKey(now.data.id), now.data]);
        }
        dels.push(key);
        continue;
      }
      quarantined.push(q.success ? q.data : { key, value, reason: 'unreadable quarantine record', quarantinedAt: 0 });
    } else if (key === CACHE_KEY) cacheRaw = value;
    else if (key === LOG_KEY)
      continue; // read before everything else (log-snapshot.ts)
    else if (key === 'meta') {
      if (!meta.success && metaRaw !== undefined && !newer) quarantine(key, value, describeIssues(meta.error));
    } else if (key === V1_KEY && !newer && !(meta.success && meta.data.schemaVersion >= 2)) {
      const m = migrateV1(value, tz, clock());
      const have = new Set(entries.map(([k]) => k));
      for (const e of m.events) {
        if (have.has(eventKey(e.id))) continue;
        keep(e);
        puts.push([eventKey(e.id), e]);
      }
      m.rejected.forEach((r, i) => quarantine(`${r.where}#${i}`, r.value, r.reason));
      dels.push(V1_KEY);
    } else if (!newer) quarantine(key, value, 'not a record this version of Saturate knows');
  }
  return {
    events,
    singles,
    quarantined,
    puts,
    dels,
    // A newer `meta` this release cannot fully read still says its version (for the snapshot).
    meta: meta.success
      ? { success: true, data: meta.data }
      : newer
        ? { success: true, data: { schemaVersion: version } }
        : { success: false },
    newer,
    cacheRaw,
    chunkKeys,
    chunkEvents: inChunks ? chunkEvents.sort(compareEvents) : chunkEvents,
  };
}
