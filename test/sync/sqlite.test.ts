/** The sync server end to end on SQLite (node:sqlite, one file in a temp dir). */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll } from 'vitest';
import { openSqliteStore, SQLITE_FILE } from '../../server/sync/sqlite.ts';
import { syncSuite, type Backend } from './suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SQLite as the suite's backend: rows counted and the raw file read with a second connection. */
export function sqliteBackend(d: string): Backend {
  const file = join(d, SQLITE_FILE);
  return {
    open: () => openSqliteStore(d),
    async rows(accountId) {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        const count = (sql: string) => Number((db.prepare(sql).get(accountId) as { n: number }).n);
        return {
          accounts: count('SELECT count(*) AS n FROM accounts WHERE id = ?'),
          ...Object.fromEntries(
            ['items', 'sessions', 'prf_keys', 'credentials', 'challenges'].map((t) => [
              t,
              count(`SELECT count(*) AS n FROM ${t} WHERE account_id = ?`),
            ]),
          ),
        };
      } finally {
        db.close();
      }
    },
    async raw() {
      return Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    },
  };
}

syncSuite('SQLite', () => sqliteBackend(dir));
