/** The sync server end to end on a real PostgreSQL 15 (started in a temp dir by the harness). */
import pg from 'pg';
import { afterAll, beforeAll, vi } from 'vitest';
import { openPostgresStore } from '../../server/sync/postgres.ts';
import { POSTGRES_TEST_LIMITS, startPostgres, type RunningPostgres } from './postgres-harness.ts';
import { syncSuite, type Backend } from './suite.ts';

vi.setConfig(POSTGRES_TEST_LIMITS);
let db: RunningPostgres;
beforeAll(async () => {
  db = await startPostgres();
});
afterAll(async () => db?.stop());

/** PostgreSQL as the suite's backend: rows counted with a second connection, the raw bytes from pg_dump. */
export function postgresBackend(get: () => RunningPostgres): Backend {
  return {
    open: () => openPostgresStore(get().url),
    async rows(accountId) {
      const c = new pg.Client({ connectionString: get().url });
      await c.connect();
      try {
        const count = async (sql: string) => Number((await c.query(sql, [accountId])).rows[0].n);
        const out: Record<string, number> = {
          accounts: await count('SELECT count(*) AS n FROM accounts WHERE id = $1'),
        };
        for (const t of ['items', 'sessions', 'prf_keys', 'credentials', 'challenges'])
          out[t] = await count(`SELECT count(*) AS n FROM ${t} WHERE account_id = $1`);
        return out;
      } finally {
        await c.end();
      }
    },
    async raw() {
      return get().dump();
    },
  };
}

syncSuite('PostgreSQL', () => postgresBackend(() => db));
