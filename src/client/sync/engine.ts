/**
 * One sync with the account's server (src/lib/sync/plan.ts gives the steps; this file does the I/O):
 * 1. stamp records changed here (on a device's first sync after sign-in, after the pull instead, so the account's
 *    settings win over a fresh device's defaults and the device's own records are added);
 * 2. pull every page after the cursor, decrypt, merge events into the store through its import path (union by id:
 *    `applyImport`, which validates every event) and write winning record versions;
 * 3. push the events the server does not hold and the queued record versions, 500 items a request;
 * 4. read the account's status (devices). The state is written after every page, so an interrupted sync resumes.
 * One sync at a time per page (`syncNow` joins a running one). It runs beside the page, never on the path of an
 * answer: the store records first, sync reads what is recorded.
 */
import type { StoredItem } from '../../protocol/sync.ts';
import { backupToText, createBackup } from '../../lib/backup.ts';
import { decryptItem, encryptItem, type Plain } from '../../lib/sync/items.ts';
import { eventsToPush, stampLocalChanges, takeRemoteRecords, type PulledVersion } from '../../lib/sync/plan.ts';
import type { SyncLocal } from '../../lib/sync/state.ts';
import type { AccountKeys } from '../../lib/sync/keys.ts';
import type { ProgressEvent } from '../../schemas/progress-event.ts';
import type { SyncApi } from './api.ts';

export const PULL_LIMIT = 2000;
export const PUSH_BATCH = 500;

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
}

/** What one sync did. */
export interface SyncReport {
  pulled: number;
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
    const page = await d.api.pull(local.cursor, PULL_LIMIT);
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

/** Decrypts a pulled page and merges it here. */
async function takeIn(d: SyncDeps, local: SyncLocal, items: readonly StoredItem[]) {
  const plains = await Promise.all(items.map((it) => decryptItem(d.keys, it)));
  const events: ProgressEvent[] = [];
  const versions: PulledVersion[] = [];
  let skipped = 0;
  plains.forEach((p, i) => {
    if ('skip' in p) skipped++;
    else if (p.kind === 'event') events.push(p.event as ProgressEvent);
    else versions.push({ itemId: items[i]!.id, version: p.record });
  });
  const sent = new Set(local.sentEventIds);
  if (events.length) {
    const have = new Set((await d.events()).map((e) => e.id));
    const byId = new Map<string, ProgressEvent>();
    for (const e of events) if (typeof e?.id === 'string' && !have.has(e.id)) byId.set(e.id, e);
    if (byId.size) {
      const result = await d.importEvents(backupToText(createBackup([...byId.values()], d.now())));
      if ('ok' in result && result.ok === false) skipped += byId.size;
    }
    for (const e of events) if (typeof e?.id === 'string') sent.add(e.id);
  }
  const taken = takeRemoteRecords({ ...local, sentEventIds: [...sent] }, versions, d.now());
  if (taken.apply.length) skipped += (await d.applyRecords(taken.apply)).length;
  return { local: taken.state, skipped };
}

/** Pushes what the server does not hold, in batches; updates the state after each. */
async function pushAll(d: SyncDeps, start: SyncLocal, set: (s: SyncLocal) => void): Promise<number> {
  let local = start;
  const events = eventsToPush(local, await d.events());
  const pending = [...local.pending];
  // Encrypted a batch at a time: the first request leaves before the rest is encrypted.
  const todo: { plain: Plain; eventId?: string; record?: (typeof pending)[number] }[] = [
    ...events.map((e) => ({ plain: { kind: 'event', event: e } as Plain, eventId: e.id })),
    ...pending.map((r) => ({ plain: { kind: 'record', record: r } as Plain, record: r })),
  ];
  let pushed = 0;
  for (let i = 0; i < todo.length || (i === 0 && local.drop.length); i += PUSH_BATCH) {
    const batch = todo.slice(i, i + PUSH_BATCH);
    const items = await Promise.all(batch.map((b) => encryptItem(d.keys, b.plain)));
    await d.api.push({ items, ...(local.drop.length ? { drop: local.drop.slice(0, 5000) } : {}) });
    const sent = [...local.sentEventIds];
    const records = { ...local.records };
    batch.forEach((b, j) => {
      if (b.eventId) sent.push(b.eventId);
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
      drop: local.drop.slice(5000),
    };
    set(local);
    await d.writeLocal(local);
    pushed += items.length;
  }
  return pushed;
}
