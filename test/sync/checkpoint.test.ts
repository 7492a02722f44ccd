/**
 * The SQLite store's write-ahead log is checkpointed by its worker thread (server/sync/checkpointer.ts), not by a
 * push: while the store is open, pushed items reach the database file itself, and everything pushed is there
 * after a reopen.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openSqliteStore, SQLITE_FILE } from '../../server/sync/sqlite.ts';
import type { SyncItem } from '../../src/protocol/sync.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const item = (n: number): SyncItem => ({
  id: `item-${String(n).padStart(17, '0')}`,
  kind: 'event',
  iv: 'i'.repeat(16),
  data: 'd'.repeat(400),
});

/** Resolves when `check` holds, polling the way a learner would wait: up to `ms`. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

it('copies pushed items into the database file while the store is open, and keeps every one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sync-checkpoint-'));
  dirs.push(dir);
  const file = join(dir, SQLITE_FILE);
  const store = await openSqliteStore(dir);
  const id = 'acct-checkpoint';
  await store.createAccount({
    id,
    recoveryHash: id,
    recoveryWrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
    credential: { id: `cred-${id}`, publicKey: 'AA', counter: 0, transports: [] },
    quotaBytes: 1 << 30,
    now: 1,
  });
  // 2,000 items of ~440 bytes: ~0.9 MB, under the 1,000 pages (4 MB) at which SQLite would checkpoint by itself.
  for (let p = 0; p < 40; p++)
    await store.push(
      id,
      Array.from({ length: 50 }, (_, i) => item(p * 50 + i)),
      [],
      2 + p,
    );
  const reached = await until(() => statSync(file).size > 800_000, 15_000);
  expect(reached, `the database file stayed at ${statSync(file).size} bytes: nothing was checkpointed`).toBe(true);
  await store.close();

  const again = await openSqliteStore(dir);
  try {
    const page = await again.pull(id, 0, 5000);
    expect(page.items.map((i) => i.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  } finally {
    await again.close();
  }
});
