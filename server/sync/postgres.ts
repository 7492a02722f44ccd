/**
 * SyncStore on PostgreSQL (`pg`), for several sync-server processes on one database. A push runs in one
 * transaction that first locks its account's row (`SELECT … FOR UPDATE`): pushes to one account commit one
 * after another, each taking the seqs after the last one's, so a pull never skips an item that commits later
 * with a lower seq. Schema creation takes an advisory lock, so processes starting together do not race.
 */
import pg from 'pg';
import { WrappedKeySchema, type StoredItem, type SyncItem, type WrappedKey } from '../../src/protocol/sync.ts';
import {
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
/** The SQLSTATE `sync_push` raises when a push would pass the quota (class 'SQ': ours). */
const QUOTA_SQLSTATE = 'SQ001';

/**
 * A push in one round trip (before: BEGIN, lock, known ids, insert, update, COMMIT: six). Same steps as the
 * SQLite store: lock the account's row (concurrent pushes to it wait here, so seqs follow commit order), drop
 * the items named in `drop` (record versions, and event items whose events this push stores again, packed), count the new items' bytes against the quota (over it: raise, and the statement stores
 * nothing), insert the new items with the next seqs, update the account. Each statement inside a plpgsql
 * function takes a fresh snapshot, so the id check sees what a push that held the lock before committed.
 */
const PUSH_FUNCTION = `CREATE OR REPLACE FUNCTION sync_push(p_account text, p_ids text[], p_kinds text[], p_keys text[],
  p_ivs text[], p_data text[], p_drop text[], p_now bigint,
  OUT o_accepted int, OUT o_dropped int, OUT o_used bigint, OUT o_quota bigint) LANGUAGE plpgsql AS $fn$
DECLARE
  a record;
  freed bigint := 0;
  added bigint := 0;
BEGIN
  SELECT next_seq, used_bytes, quota_bytes FROM accounts WHERE id = p_account FOR UPDATE INTO a;
  IF NOT FOUND THEN RAISE EXCEPTION 'account vanished'; END IF;
  o_dropped := 0;
  IF cardinality(p_drop) > 0 THEN
    WITH d AS (DELETE FROM items WHERE account_id = p_account AND id = ANY(p_drop)
      RETURNING length(id) + length(iv) + length(data) + coalesce(length(key), 0) AS b)
    SELECT count(*), coalesce(sum(b), 0) FROM d INTO o_dropped, freed;
  END IF;
  SELECT count(*), coalesce(sum(length(i.id) + length(i.iv) + length(i.data) + coalesce(length(i.key), 0)), 0)
    FROM unnest(p_ids, p_ivs, p_data, p_keys) AS i(id, iv, data, key)
    WHERE NOT EXISTS (SELECT 1 FROM items x WHERE x.account_id = p_account AND x.id = i.id) INTO o_accepted, added;
  o_used := a.used_bytes - freed + added;
  o_quota := a.quota_bytes;
  IF o_used > a.quota_bytes THEN
    RAISE EXCEPTION USING ERRCODE = '${QUOTA_SQLSTATE}', MESSAGE = 'over quota', DETAIL = (a.used_bytes - freed) || ' ' || added || ' ' || a.quota_bytes;
  END IF;
  INSERT INTO items (account_id, id, seq, kind, key, iv, data)
    SELECT p_account, i.id, a.next_seq + row_number() OVER (ORDER BY i.ord) - 1, i.kind, i.key, i.iv, i.data
    FROM unnest(p_ids, p_kinds, p_keys, p_ivs, p_data) WITH ORDINALITY AS i(id, kind, key, iv, data, ord)
    WHERE NOT EXISTS (SELECT 1 FROM items x WHERE x.account_id = p_account AND x.id = i.id);
  UPDATE accounts SET next_seq = a.next_seq + o_accepted, used_bytes = o_used,
    last_push_at = CASE WHEN o_accepted > 0 OR o_dropped > 0 THEN p_now ELSE last_push_at END
    WHERE id = p_account;
END
$fn$`;

/** An arbitrary constant: the advisory lock that serialises schema creation. */
const SCHEMA_LOCK = 7_311_024;

/**
 * Connects to `url` and creates the tables when missing.
 * @example const store = await openPostgresStore('postgres://saturate@127.0.0.1:5432/saturate');
 */
export async function openPostgresStore(url: string, poolSize = 20): Promise<SyncStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {}); // an idle client's error surfaces on its next query
  const client = await pool.connect().catch((e: Error) => {
    void pool.end();
    throw new Error(`Cannot reach PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//…@')}: ${e.message}`);
  });
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    for (const sql of SCHEMA) await client.query(sql);
    await client.query(PUSH_FUNCTION);
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
      // One round trip: `sync_push` (PUSH_FUNCTION) runs the whole push as one statement, so one transaction.
      const fresh = uniqueById(items);
      try {
        const r = (
          await pool.query('SELECT * FROM sync_push($1, $2, $3, $4, $5, $6, $7, $8)', [
            accountId,
            fresh.map((i) => i.id),
            fresh.map((i) => i.kind),
            fresh.map((i) => i.key ?? null),
            fresh.map((i) => i.iv),
            fresh.map((i) => i.data),
            [...drop],
            now,
          ])
        ).rows[0] as { o_accepted: number; o_dropped: number; o_used: number; o_quota: number };
        return {
          accepted: r.o_accepted,
          duplicates: items.length - r.o_accepted,
          dropped: r.o_dropped,
          usedBytes: Number(r.o_used),
          quotaBytes: Number(r.o_quota),
        };
      } catch (e) {
        const err = e as { code?: string; detail?: string };
        if (err.code === QUOTA_SQLSTATE) {
          const [used, bytes, quota] = (err.detail ?? '').split(' ').map(Number) as [number, number, number];
          throw new QuotaError(used, bytes, quota);
        }
        throw e;
      }
    },
    async pull(accountId, after, limit) {
      // One query, one pooled connection: the items after the cursor and the account's last seq.
      const rows = await pool.query(
        `SELECT a.next_seq - 1 AS last, i.seq, i.id, i.kind, i.key, i.iv, i.data
         FROM accounts a LEFT JOIN LATERAL (
           SELECT seq, id, kind, key, iv, data FROM items WHERE account_id = a.id AND seq > $2 ORDER BY seq LIMIT $3
         ) i ON true WHERE a.id = $1`,
        [accountId, after, limit + 1],
      );
      const list = (rows.rows as (StoredItem & { key: string | null; last: number })[]).filter((r) => r.id !== null);
      const items = list.slice(0, limit).map((r) => {
        const item: StoredItem = { id: r.id, kind: r.kind, iv: r.iv, data: r.data, seq: r.seq };
        if (r.key !== null) item.key = r.key;
        return item;
      });
      const last = Number((rows.rows[0] as { last: number } | undefined)?.last ?? 0);
      return { items, more: list.length > limit, last };
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
