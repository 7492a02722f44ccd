/**
 * One sync with the account's server (src/lib/sync/plan.ts gives the steps; this file does the I/O):
 * 1. stamp records changed here (on a device's first sync after sign-in, after the pull instead, so the account's
 *    settings win over a fresh device's defaults and the device's own records are added);
 * 2. pull every page after the cursor, decrypt, merge events into the store through its import path (union by id:
 *    `applyImport`, which validates every event) and write winning record versions;
 * 3. push the events the server does not hold, packed and compressed several to an item (lib/sync/batch.ts), and the
 *    queued record versions, at most 500 items or ~4 MiB a request; once the small event items this device knows
 *    of hold enough, their events are packed again with them and each request drops the small items its batches
 *    hold whole (compaction, lib/sync/compact.ts);
 * 4. read the account's status (devices). The state is written after every page, so an interrupted sync resumes.
 * One sync at a time per page (`syncNow` joins a running one). It runs beside the page, never on the path of an
 * answer: the store records first, sync reads what is recorded.
 */
import type { StoredItem, SyncItem } from '../../protocol/sync.ts';
import { backupToText, createBackup } from '../../lib/backup.ts';
import { decryptItem, encryptItem, type Plain } from '../../lib/sync/items.ts';
import { packEvents } from '../../lib/sync/batch.ts';
import { stampLocalChanges, takeRemoteRecords, type PulledVersion } from '../../lib/sync/plan.ts';
import {
  COMPACT_LIMITS,
  dropsFor,
  eventsToPack,
  forgetItems,
  noteItems,
  planCompaction,
  type CompactLimits,
  type EventItem,
} from '../../lib/sync/compact.ts';
import type { SyncLocal } from '../../lib/sync/state.ts';
import type { AccountKeys } from '../../lib/sync/keys.ts';
import type { ProgressEvent } from '../../schemas/progress-event.ts';
import { SyncApiError, type SyncApi } from './api.ts';

export const PULL_LIMIT = 2000;
export const PUSH_BATCH = 500;
/** Item JSON per push request at most, well under the server's 8 MiB body limit. */
export const PUSH_BYTES = 4 * 1024 * 1024;
/** Ids a push request may drop (the server's cap). */
export const PUSH_DROPS = 5000;

/** What a sync needs; the browser's are in `browserDeps()` (session.ts), tests pass their own. */
export interface SyncDeps {
  api: SyncApi;
  keys: AccountKeys;
  readLocal: () => Promise<SyncLocal>;
  writeLocal: (s: SyncLocal) => Promise<void>;
  /** The event log now (the store's snapshot). */
  events: () => Promise<readonly ProgressEvent[]>;
  /** Merges events by union of id (the store's backup import). */
  importEvents: (text: string) => Promise<{ ok?: boolean; applied?: boolean } | { ok: false; message: string }>;
  records: (now: number) => Promise<Map<string, unknown>>;
  applyRecords: (versions: PulledVersion['version'][]) => Promise<string[]>;
  now: () => number;
  /** When small event items are compacted (lib/sync/compact.ts); tests pass smaller numbers. */
  compaction?: CompactLimits;
}

/** What one sync did. */
export interface SyncReport {
  pulled: number;
  /** Events and record versions sent (several events travel in one item). */
  pushed: number;
  skipped: number;
  devices: number;
  lastSyncAt: number;
}

/** Runs one sync. Throws `SyncApiError` (api.ts) on a failed request; what was done before it is kept. */
export async function syncOnce(d: SyncDeps): Promise<SyncReport> {
  let local = await d.readLocal();
  const first = local.cursor === '' && local.lastSyncAt === null;
  if (!first) local = stampLocalChanges(local, await d.records(d.now()), d.now());
  let pulled = 0;
  let skipped = 0;
  for (;;) {
    const page = await pullOrRestart(d, local);
    if (page.restarted) local = { ...local, cursor: '', sentEventIds: [], small: {} };
    const r = await takeIn(d, local, page.items);
    local = { ...r.local, cursor: page.cursor };
    pulled += page.items.length;
    skipped += r.skipped;
    await d.writeLocal(local);
    if (!page.more || page.items.length === 0) break;
  }
  if (first) local = stampLocalChanges(local, await d.records(d.now()), d.now());
  const pushed = await pushAll(d, local, (s) => (local = s));
  const status = await d.api.status();
  local = { ...local, lastSyncAt: d.now(), devices: status.devices };
  await d.writeLocal(local);
  return { pulled, pushed, skipped, devices: status.devices, lastSyncAt: local.lastSyncAt! };
}

/**
 * Pulls a page after the cursor. A cursor the server says is ahead of the account (the server was reset or
 * restored) is forgotten and the pull starts over from the beginning: union by id makes that harmless, and the
 * sync goes on instead of failing every time.
 */
async function pullOrRestart(d: SyncDeps, local: SyncLocal) {
  try {
    return { ...(await d.api.pull(local.cursor, PULL_LIMIT)), restarted: false };
  } catch (e) {
    if (local.cursor === '' || !(e instanceof SyncApiError) || e.code !== 'bad_cursor') throw e;
    // What this device had sent may be gone with the old server: send it all again (the server dedupes by id).
    return { ...(await d.api.pull('', PULL_LIMIT)), restarted: true };
  }
}

/** Decrypts a pulled page and merges it here. */
async function takeIn(d: SyncDeps, local: SyncLocal, items: readonly StoredItem[]) {
  const plains = await Promise.all(items.map((it) => decryptItem(d.keys, it)));
  const events: ProgressEvent[] = [];
  const versions: PulledVersion[] = [];
  const eventItems: EventItem[] = [];
  let skipped = 0;
  plains.forEach((p, i) => {
    if ('skip' in p) skipped++;
    else if (p.kind === 'record') versions.push({ itemId: items[i]!.id, version: p.record });
    else {
      const held = (p.kind === 'event' ? [p.event] : p.events) as ProgressEvent[];
      events.push(...held);
      const ids = held.map((e) => e?.id);
      if (ids.every((id) => typeof id === 'string')) eventItems.push({ id: items[i]!.id, eventIds: ids });
    }
  });
  local = { ...local, small: noteItems(local.small, eventItems, d.compaction) };
  const sent = new Set(local.sentEventIds);
  if (events.length) {
    const have = new Set((await d.events()).map((e) => e.id));
    const byId = new Map<string, ProgressEvent>();
    for (const e of events) if (typeof e?.id === 'string' && !have.has(e.id)) byId.set(e.id, e);
    skipped += await importSplitting(d, [...byId.values()]);
    for (const e of events) if (typeof e?.id === 'string') sent.add(e.id);
  }
  const taken = takeRemoteRecords({ ...local, sentEventIds: [...sent] }, versions, d.now());
  if (taken.apply.length) skipped += (await d.applyRecords(taken.apply)).length;
  return { local: taken.state, skipped };
}

/**
 * Imports events through the store's import path, which refuses a whole set for one event it cannot read: a refused
 * set is halved until each event that cannot be read is refused alone, so the others still get in. Returns how
 * many were refused.
 */
async function importSplitting(d: SyncDeps, events: readonly ProgressEvent[]): Promise<number> {
  if (!events.length) return 0;
  const result = await d.importEvents(backupToText(createBackup(events, d.now())));
  if (!('ok' in result && result.ok === false)) return 0;
  if (events.length === 1) return 1;
  const half = Math.ceil(events.length / 2);
  return (await importSplitting(d, events.slice(0, half))) + (await importSplitting(d, events.slice(half)));
}

type Todo = { plain: Plain; eventIds?: string[]; record?: SyncLocal['pending'][number] };

/** Pushes what the server does not hold, in requests of at most PUSH_BATCH items and ~PUSH_BYTES; updates the
 * state after each. Events go packed several to an item; the same events give the same items on a retry. When
 * compaction is due, the small items' events (read from the local log) are packed with them, and each request
 * drops the small items whose every event its batches hold. */
async function pushAll(d: SyncDeps, start: SyncLocal, set: (s: SyncLocal) => void): Promise<number> {
  const limits = d.compaction ?? COMPACT_LIMITS;
  const log = await d.events();
  const plan = planCompaction(start.small, new Set(log.map((e) => e.id)), limits);
  let local = plan.forget.length ? { ...start, small: forgetItems(start.small, plan.forget) } : start;
  set(local);
  const wasSent = new Set(local.sentEventIds);
  const events = eventsToPack(log, wasSent, plan.items);
  const todo: Todo[] = [
    ...packEvents(events).map((run) => ({
      plain: { kind: 'events', events: run } as Plain,
      eventIds: run.map((e) => e.id),
    })),
    ...local.pending.map((record) => ({ plain: { kind: 'record', record } as Plain, record })),
  ];
  let pushed = 0;
  let i = 0;
  while (i < todo.length || (i === 0 && local.drop.length)) {
    // Encrypted a request at a time: the first request leaves before the rest is encrypted.
    const batch: Todo[] = [];
    const items: SyncItem[] = [];
    let bytes = 0;
    while (i < todo.length && batch.length < PUSH_BATCH) {
      const item = await encryptItem(d.keys, todo[i]!.plain);
      const size = JSON.stringify(item).length;
      if (batch.length && bytes + size > PUSH_BYTES) break;
      batch.push(todo[i++]!);
      items.push(item);
      bytes += size;
    }
    const batches = batch.flatMap((b, j) => (b.eventIds ? [{ id: items[j]!.id, eventIds: b.eventIds }] : []));
    const compacted = dropsFor(plan.items, batches);
    const drop = [...compacted, ...local.drop.slice(0, PUSH_DROPS - compacted.length)];
    await d.api.push({ items, ...(drop.length ? { drop } : {}) });
    const sent = [...local.sentEventIds];
    const records = { ...local.records };
    batch.forEach((b, j) => {
      if (b.eventIds) sent.push(...b.eventIds.filter((id) => !wasSent.has(id)));
      const known = b.record && records[b.record.key];
      if (b.record && known && known.hlc.wall === b.record.hlc.wall && known.hlc.counter === b.record.hlc.counter)
        records[b.record.key] = { ...known, itemId: items[j]!.id };
    });
    const done = new Set(batch.filter((b) => b.record).map((b) => b.record!));
    local = {
      ...local,
      sentEventIds: sent,
      records,
      pending: local.pending.filter((p) => !done.has(p)),
      drop: local.drop.slice(drop.length - compacted.length),
      small: noteItems(forgetItems(local.small, compacted), batches, limits),
    };
    set(local);
    await d.writeLocal(local);
    // Events sent for the first time and records, not items (nor events packed again by compaction).
    pushed += batch.reduce((n, b) => n + (b.eventIds?.filter((id) => !wasSent.has(id)).length ?? 1), 0);
    if (!todo.length) break;
  }
  return pushed;
}
