/**
 * SyncStore on PostgreSQL (`pg`), for several sync-server processes on one database. A push runs in one
 * transaction that first locks its account's row (`SELECT … FOR UPDATE`): pushes to one account commit one
 * after another, each taking the seqs after the last one's, so a pull never skips an item that commits later
 * with a lower seq. Schema creation takes an advisory lock, so processes starting together do not race.
 */
import pg from 'pg';
import { WrappedKeySchema, type StoredItem, type SyncItem, type WrappedKey } from '../../src/protocol/sync.ts';
import {
  itemBytes,
  QuotaError,
  SCHEMA,
  uniqueById,
  type ChallengeRow,
  type CredentialRow,
  type PushOutcome,
  type SyncStore,
} from './store.ts';

// BIGINT columns hold ms timestamps and seqs, all below 2^53: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

const wrapped = (text: unknown): WrappedKey => WrappedKeySchema.parse(JSON.parse(String(text)));
/** An arbitrary constant: the advisory lock that serialises schema creation. */
const SCHEMA_LOCK = 7_311_024;

/**
 * Connects to `url` and creates the tables when missing.
 * @example const store = await openPostgresStore('postgres://saturate@127.0.0.1:5432/saturate');
 */
export async function openPostgresStore(url: string, poolSize = 10): Promise<SyncStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {}); // an idle client's error surfaces on its next query
  const client = await pool.connect().catch((e: Error) => {
    void pool.end();
    throw new Error(`Cannot reach PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//…@')}: ${e.message}`);
  });
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    for (const sql of SCHEMA) await client.query(sql);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => {});
    client.release();
  }

  const one = async <T>(sql: string, params: unknown[]): Promise<T | null> =>
    ((await pool.query(sql, params)).rows[0] as T | undefined) ?? null;
  const tx = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  };

  return {
    kind: 'postgres',
    async putChallenge(r: ChallengeRow) {
      await pool.query(
        'INSERT INTO challenges (id, challenge, purpose, account_id, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [r.id, r.challenge, r.purpose, r.accountId, r.expiresAt],
      );
    },
    async takeChallenge(id) {
      const r = await one<Record<string, unknown>>(
        'DELETE FROM challenges WHERE id = $1 RETURNING id, challenge, purpose, account_id, expires_at',
        [id],
      );
      if (!r) return null;
      return {
        id: String(r['id']),
        challenge: String(r['challenge']),
        purpose: r['purpose'] as ChallengeRow['purpose'],
        accountId: (r['account_id'] as string | null) ?? null,
        expiresAt: Number(r['expires_at']),
      };
    },
    async createAccount(a) {
      await tx(async (c) => {
        await c.query(
          'INSERT INTO accounts (id, recovery_hash, recovery_wrapped, quota_bytes, created_at) VALUES ($1, $2, $3, $4, $5)',
          [a.id, a.recoveryHash, JSON.stringify(a.recoveryWrapped), a.quotaBytes, a.now],
        );
        const k = a.credential;
        await c.query(
          'INSERT INTO credentials (id, account_id, public_key, counter, transports) VALUES ($1, $2, $3, $4, $5)',
          [k.id, a.id, k.publicKey, k.counter, JSON.stringify(k.transports)],
        );
      });
    },
    async findCredential(id): Promise<CredentialRow | null> {
      const r = await one<Record<string, unknown>>(
        'SELECT id, account_id, public_key, counter, transports FROM credentials WHERE id = $1',
        [id],
      );
      if (!r) return null;
      return {
        id: String(r['id']),
        accountId: String(r['account_id']),
        publicKey: String(r['public_key']),
        counter: Number(r['counter']),
        transports: JSON.parse(String(r['transports'])) as string[],
      };
    },
    async updateCounter(id, counter) {
      await pool.query('UPDATE credentials SET counter = $1 WHERE id = $2', [counter, id]);
    },
    async findRecovery(hash) {
      const r = await one<{ id: string; recovery_hash: string }>(
        'SELECT id, recovery_hash FROM accounts WHERE recovery_hash = $1',
        [hash],
      );
      return r ? { accountId: r.id, recoveryHash: r.recovery_hash } : null;
    },
    async keys(accountId) {
      const r = await one<{ recovery_wrapped: string }>('SELECT recovery_wrapped FROM accounts WHERE id = $1', [
        accountId,
      ]);
      if (!r) throw new Error('account vanished');
      const prf: Record<string, WrappedKey> = {};
      const rows = await pool.query('SELECT credential_id, wrapped FROM prf_keys WHERE account_id = $1', [accountId]);
      for (const p of rows.rows as { credential_id: string; wrapped: string }[])
        prf[p.credential_id] = wrapped(p.wrapped);
      return { recovery: wrapped(r.recovery_wrapped), prf };
    },
    async putPrfKey(accountId, credentialId, key) {
      const r = await pool.query(
        `INSERT INTO prf_keys (account_id, credential_id, wrapped)
           SELECT account_id, id, $3 FROM credentials WHERE id = $2 AND account_id = $1
         ON CONFLICT (account_id, credential_id) DO UPDATE SET wrapped = excluded.wrapped`,
        [accountId, credentialId, JSON.stringify(key)],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async createSession(tokenHash, accountId, now, expiresAt) {
      await pool.query(
        'INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
        [tokenHash, accountId, now, expiresAt],
      );
    },
    async findSession(tokenHash, now) {
      const r = await one<{ account_id: string }>(
        'SELECT account_id FROM sessions WHERE token_hash = $1 AND expires_at > $2',
        [tokenHash, now],
      );
      return r?.account_id ?? null;
    },
    async deleteSession(tokenHash) {
      await pool.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
    },
    async push(accountId, items: readonly SyncItem[], drop, now): Promise<PushOutcome> {
      return tx(async (c) => {
        // The row lock: a concurrent push to this account (from any process) waits here until this one commits.
        const a = (
          await c.query(
            'SELECT next_seq, used_bytes, quota_bytes, last_push_at FROM accounts WHERE id = $1 FOR UPDATE',
            [accountId],
          )
        ).rows[0] as { next_seq: number; used_bytes: number; quota_bytes: number } | undefined;
        if (!a) throw new Error('account vanished');
        let used = a.used_bytes;
        let dropped = 0;
        if (drop.length) {
          const d = await c.query(
            `DELETE FROM items WHERE account_id = $1 AND id = ANY($2) AND kind = 'record'
             RETURNING length(id) + length(iv) + length(data) + coalesce(length(key), 0) AS bytes`,
            [accountId, drop],
          );
          dropped = d.rowCount ?? 0;
          for (const r of d.rows as { bytes: number }[]) used -= Number(r.bytes);
        }
        const unique = uniqueById(items);
        const known = new Set(
          unique.length
            ? (
                (
                  await c.query('SELECT id FROM items WHERE account_id = $1 AND id = ANY($2)', [
                    accountId,
                    unique.map((i) => i.id),
                  ])
                ).rows as { id: string }[]
              ).map((r) => r.id)
            : [],
        );
        const fresh = unique.filter((i) => !known.has(i.id));
        const bytes = fresh.reduce((s, i) => s + itemBytes(i), 0);
        if (used + bytes > a.quota_bytes) throw new QuotaError(used, bytes, a.quota_bytes);
        const seq0 = a.next_seq;
        if (fresh.length)
          await c.query(
            `INSERT INTO items (account_id, id, seq, kind, key, iv, data)
             SELECT $1::text, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])`,
            [
              accountId,
              fresh.map((i) => i.id),
              fresh.map((_, n) => seq0 + n),
              fresh.map((i) => i.kind),
              fresh.map((i) => i.key ?? null),
              fresh.map((i) => i.iv),
              fresh.map((i) => i.data),
            ],
          );
        used += bytes;
        await c.query(
          'UPDATE accounts SET next_seq = $1, used_bytes = $2, last_push_at = CASE WHEN $3 THEN $4 ELSE last_push_at END WHERE id = $5',
          [seq0 + fresh.length, used, fresh.length > 0 || dropped > 0, now, accountId],
        );
        return {
          accepted: fresh.length,
          duplicates: items.length - fresh.length,
          dropped,
          usedBytes: used,
          quotaBytes: a.quota_bytes,
        };
      });
    },
    async pull(accountId, after, limit) {
      const [a, rows] = await Promise.all([
        one<{ next_seq: number }>('SELECT next_seq FROM accounts WHERE id = $1', [accountId]),
        pool.query(
          'SELECT seq, id, kind, key, iv, data FROM items WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
          [accountId, after, limit + 1],
        ),
      ]);
      const list = rows.rows as (StoredItem & { key: string | null })[];
      const items = list.slice(0, limit).map((r) => {
        const item: StoredItem = { id: r.id, kind: r.kind, iv: r.iv, data: r.data, seq: r.seq };
        if (r.key !== null) item.key = r.key;
        return item;
      });
      return { items, more: list.length > limit, last: a ? a.next_seq - 1 : 0 };
    },
    async status(accountId, now) {
      const r = await one<Record<string, number | null>>(
        `SELECT a.used_bytes, a.quota_bytes, a.last_push_at,
           (SELECT count(*)::int FROM sessions WHERE account_id = a.id AND expires_at > $2) AS devices,
           (SELECT count(*)::int FROM items WHERE account_id = a.id) AS items
         FROM accounts a WHERE a.id = $1`,
        [accountId, now],
      );
      if (!r) throw new Error('account vanished');
      return {
        devices: Number(r['devices']),
        items: Number(r['items']),
        usedBytes: Number(r['used_bytes']),
        quotaBytes: Number(r['quota_bytes']),
        lastPushAt: r['last_push_at'] === null ? null : Number(r['last_push_at']),
      };
    },
    async deleteAccount(accountId) {
      await tx(async (c) => {
        await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
        for (const table of ['items', 'sessions', 'prf_keys', 'credentials', 'challenges'])
          await c.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
        await c.query('DELETE FROM accounts WHERE id = $1', [accountId]);
      });
    },
    async sweep(now) {
      await pool.query('DELETE FROM challenges WHERE expires_at <= $1', [now]);
      await pool.query('DELETE FROM sessions WHERE expires_at <= $1', [now]);
    },
    async close() {
      await pool.end();
    },
  };
}
