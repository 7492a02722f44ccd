/**
 * A push on both stores, straight through `SyncStore`: PostgreSQL runs it as one statement (`sync_push`), SQLite
 * as a transaction of several; both must count duplicates, drop record versions and compacted event items, keep the quota (a push over it
 * stores nothing, drops included) and hand out seqs in order.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgresStore } from '../../server/sync/postgres.ts';
import { openSqliteStore } from '../../server/sync/sqlite.ts';
import { QuotaError, type SyncStore } from '../../server/sync/store.ts';
import type { SyncItem } from '../../src/protocol/sync.ts';
import { POSTGRES_TEST_LIMITS, startPostgres, type RunningPostgres } from './postgres-harness.ts';

vi.setConfig(POSTGRES_TEST_LIMITS);
let db: RunningPostgres;
beforeAll(async () => {
  db = await startPostgres();
});
afterAll(async () => db?.stop());

const item = (n: number, record = false): SyncItem => ({
  id: `item-${String(n).padStart(17, '0')}`,
  kind: record ? 'record' : 'event',
  ...(record ? { key: 'k'.repeat(22) } : {}),
  iv: 'i'.repeat(16),
  data: 'd'.repeat(62),
});
/** Bytes of one item as the quota counts them: 22 + 16 + 62 (+ 22 for a record's key). */
const EVENT = 22 + 16 + 62;
const RECORD = EVENT + 22;

const stores: [string, () => Promise<SyncStore>][] = [
  ['SQLite', () => openSqliteStore(mkdtempSync(join(tmpdir(), 'sync-push-')))],
  ['PostgreSQL', () => openPostgresStore(db.url)],
];

describe.each(stores)('a push on %s', (_name, open) => {
  it('counts duplicates, drops record versions and event items packed again, refuses a push over the quota whole, and numbers seqs in order', async () => {
    const store = await open();
    try {
      const id = `acct-${Math.random().toString(36).slice(2)}`;
      await store.createAccount({
        id,
        recoveryHash: id,
        recoveryWrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
        credential: { id: `cred-${id}`, publicKey: 'AA', counter: 0, transports: [] },
        quotaBytes: 3 * EVENT + RECORD,
        now: 1,
      });
      expect(await store.push(id, [item(1), item(2), item(1), item(3, true)], [], 2)).toEqual({
        accepted: 3,
        duplicates: 1,
        dropped: 0,
        usedBytes: 2 * EVENT + RECORD,
        quotaBytes: 3 * EVENT + RECORD,
      });
      // Two new events would pass the quota even with the record dropped: nothing happens, not even the drop.
      const over = await store.push(id, [item(4), item(5), item(6)], [item(3).id], 3).catch((e: unknown) => e);
      expect(over).toBeInstanceOf(QuotaError);
      expect(over).toMatchObject({ usedBytes: 2 * EVENT, pushBytes: 3 * EVENT, quotaBytes: 3 * EVENT + RECORD });
      expect((await store.status(id, 3)).items).toBe(3);
      // Dropping the record makes room for two events.
      expect(await store.push(id, [item(4), item(5)], [item(3).id], 4)).toMatchObject({
        accepted: 2,
        duplicates: 0,
        dropped: 1,
        usedBytes: 4 * EVENT,
      });
      // Event items dropped by the push that stores their events again (item 6 stands for the batch of 1 and 2):
      // 4 + 1 events would pass the quota, but the freed bytes count first.
      expect(await store.push(id, [item(6)], [item(1).id, item(2).id], 5)).toMatchObject({
        accepted: 1,
        dropped: 2,
        usedBytes: 3 * EVENT,
      });
      const pulled = await store.pull(id, 0, 100);
      expect(pulled.items.map((i) => [i.id, i.seq])).toEqual([
        [item(4).id, 4],
        [item(5).id, 5],
        [item(6).id, 6],
      ]);
      expect(pulled.last).toBe(6);
      expect((await store.status(id, 5)).lastPushAt).toBe(5);
    } finally {
      await store.close();
    }
  });
});
