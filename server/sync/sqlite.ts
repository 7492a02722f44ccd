/**
 * SyncStore on SQLite with `node:sqlite` (built into Node: no native build; see README.md for why not
 * better-sqlite3). One file, WAL journal. node:sqlite is synchronous, so each method runs whole between two
 * turns of the event loop: a transaction never interleaves with another request of this process. The WAL is
 * checkpointed on a worker thread (checkpointer.ts), never inside a request.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { WrappedKeySchema, type StoredItem, type SyncItem, type WrappedKey } from '../../src/protocol/sync.ts';
import {
  itemBytes,
  QuotaError,
  SCHEMA,
  uniqueById,
  type ChallengeRow,
  type CredentialRow,
  type NewAccount,
  type PushOutcome,
  type StatusRow,
  type SyncStore,
} from './store.ts';
import { startCheckpointer, WAL_AUTOCHECKPOINT_PAGES } from './checkpointer.ts';

/** The database file's name under `--data`. */
export const SQLITE_FILE = 'sync.sqlite';

type Row = Record<string, SQLInputValue>;

const wrapped = (text: unknown): WrappedKey => WrappedKeySchema.parse(JSON.parse(String(text)));

/**
 * Opens (creating) `<dir>/sync.sqlite`.
 * @example const store = await openSqliteStore('./sync-data');
 */
export async function openSqliteStore(dir: string): Promise<SyncStore & { file: string }> {
  let sqlite: typeof import('node:sqlite');
  try {
    sqlite = await import('node:sqlite');
  } catch {
    throw new Error(
      `This Node (${process.version}) has no node:sqlite: use Node 22.13 or newer (24 recommended), or --database postgres://…`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, SQLITE_FILE);
  const db: DatabaseSync = new sqlite.DatabaseSync(file);
  // Checkpoints run on a worker thread (checkpointer.ts); this connection's own is only the bound on the WAL.
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON;
     PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${WAL_AUTOCHECKPOINT_PAGES * 4096};`,
  );
  for (const sql of SCHEMA) db.exec(sql);
  const checkpointer = await startCheckpointer(file);

  const q = (sql: string) => db.prepare(sql);
  const st = {
    putChallenge: q('INSERT INTO challenges (id, challenge, purpose, account_id, expires_at) VALUES (?, ?, ?, ?, ?)'),
    takeChallenge: q('DELETE FROM challenges WHERE id = ? RETURNING id, challenge, purpose, account_id, expires_at'),
    insAccount: q(
      'INSERT INTO accounts (id, recovery_hash, recovery_wrapped, quota_bytes, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    insCredential: q(
      'INSERT INTO credentials (id, account_id, public_key, counter, transports) VALUES (?, ?, ?, ?, ?)',
    ),
    findCredential: q('SELECT id, account_id, public_key, counter, transports FROM credentials WHERE id = ?'),
    updateCounter: q('UPDATE credentials SET counter = ? WHERE id = ?'),
    findRecovery: q('SELECT id, recovery_hash FROM accounts WHERE recovery_hash = ?'),
    recoveryKey: q('SELECT recovery_wrapped FROM accounts WHERE id = ?'),
    prfKeys: q('SELECT credential_id, wrapped FROM prf_keys WHERE account_id = ?'),
    putPrf: q(
      'INSERT INTO prf_keys (account_id, credential_id, wrapped) VALUES (?, ?, ?) ON CONFLICT (account_id, credential_id) DO UPDATE SET wrapped = excluded.wrapped',
    ),
    insSession: q('INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    findSession: q('SELECT account_id FROM sessions WHERE token_hash = ? AND expires_at > ?'),
    delSession: q('DELETE FROM sessions WHERE token_hash = ?'),
    account: q('SELECT next_seq, used_bytes, quota_bytes, last_push_at FROM accounts WHERE id = ?'),
    hasItem: q('SELECT 1 AS x FROM items WHERE account_id = ? AND id = ?'),
    insItem: q('INSERT INTO items (account_id, id, seq, kind, key, iv, data) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    dropItem: q(
      'DELETE FROM items WHERE account_id = ? AND id = ? RETURNING length(id) + length(iv) + length(data) + coalesce(length(key), 0) AS bytes',
    ),
    setAccount: q('UPDATE accounts SET next_seq = ?, used_bytes = ?, last_push_at = ? WHERE id = ?'),
    pull: q('SELECT seq, id, kind, key, iv, data FROM items WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
    devices: q('SELECT count(*) AS n FROM sessions WHERE account_id = ? AND expires_at > ?'),
    itemCount: q('SELECT count(*) AS n FROM items WHERE account_id = ?'),
  };
  st.pull.setReadBigInts(false);

  const tx = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      db.exec('COMMIT');
      return out;
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  };
  const num = (v: unknown): number => Number(v);

  return {
    kind: 'sqlite',
    file,
    async putChallenge(c: ChallengeRow) {
      st.putChallenge.run(c.id, c.challenge, c.purpose, c.accountId, c.expiresAt);
    },
    async takeChallenge(id) {
      const r = st.takeChallenge.get(id) as Row | undefined;
      if (!r) return null;
      return {
        id: String(r['id']),
        challenge: String(r['challenge']),
        purpose: r['purpose'] as ChallengeRow['purpose'],
        accountId: r['account_id'] === null ? null : String(r['account_id']),
        expiresAt: num(r['expires_at']),
      };
    },
    async createAccount(a: NewAccount) {
      tx(() => {
        st.insAccount.run(a.id, a.recoveryHash, JSON.stringify(a.recoveryWrapped), a.quotaBytes, a.now);
        const c = a.credential;
        st.insCredential.run(c.id, a.id, c.publicKey, c.counter, JSON.stringify(c.transports));
      });
    },
    async findCredential(id): Promise<CredentialRow | null> {
      const r = st.findCredential.get(id) as Row | undefined;
      if (!r) return null;
      return {
        id: String(r['id']),
        accountId: String(r['account_id']),
        publicKey: String(r['public_key']),
        counter: num(r['counter']),
        transports: JSON.parse(String(r['transports'])) as string[],
      };
    },
    async updateCounter(id, counter) {
      st.updateCounter.run(counter, id);
    },
    async findRecovery(hash) {
      const r = st.findRecovery.get(hash) as Row | undefined;
      return r ? { accountId: String(r['id']), recoveryHash: String(r['recovery_hash']) } : null;
    },
    async keys(accountId) {
      const r = st.recoveryKey.get(accountId) as Row | undefined;
      if (!r) throw new Error('account vanished');
      const prf: Record<string, WrappedKey> = {};
      for (const p of st.prfKeys.all(accountId) as Row[]) prf[String(p['credential_id'])] = wrapped(p['wrapped']);
      return { recovery: wrapped(r['recovery_wrapped']), prf };
    },
    async putPrfKey(accountId, credentialId, key) {
      return tx(() => {
        const c = st.findCredential.get(credentialId) as Row | undefined;
        if (!c || c['account_id'] !== accountId) return false;
        st.putPrf.run(accountId, credentialId, JSON.stringify(key));
        return true;
      });
    },
    async createSession(tokenHash, accountId, now, expiresAt) {
      st.insSession.run(tokenHash, accountId, now, expiresAt);
    },
    async findSession(tokenHash, now) {
      const r = st.findSession.get(tokenHash, now) as Row | undefined;
      return r ? String(r['account_id']) : null;
    },
    async deleteSession(tokenHash) {
      st.delSession.run(tokenHash);
    },
    async push(accountId, items: readonly SyncItem[], drop, now): Promise<PushOutcome> {
      return tx(() => {
        const a = st.account.get(accountId) as Row | undefined;
        if (!a) throw new Error('account vanished');
        let seq = num(a['next_seq']);
        let used = num(a['used_bytes']);
        const quota = num(a['quota_bytes']);
        let dropped = 0;
        for (const id of drop) {
          const r = st.dropItem.get(accountId, id) as Row | undefined;
          if (r) {
            dropped++;
            used -= num(r['bytes']);
          }
        }
        const fresh = uniqueById(items).filter((i) => !st.hasItem.get(accountId, i.id));
        const bytes = fresh.reduce((s, i) => s + itemBytes(i), 0);
        if (used + bytes > quota) throw new QuotaError(used, bytes, quota);
        for (const i of fresh) st.insItem.run(accountId, i.id, seq++, i.kind, i.key ?? null, i.iv, i.data);
        used += bytes;
        st.setAccount.run(seq, used, fresh.length || dropped ? now : (a['last_push_at'] ?? null), accountId);
        return {
          accepted: fresh.length,
          duplicates: items.length - fresh.length,
          dropped,
          usedBytes: used,
          quotaBytes: quota,
        };
      });
    },
    async pull(accountId, after, limit) {
      const a = st.account.get(accountId) as Row | undefined;
      const rows = st.pull.all(accountId, after, limit + 1) as Row[];
      const more = rows.length > limit;
      const items: StoredItem[] = rows.slice(0, limit).map((r) => {
        const item: StoredItem = {
          id: r['id'] as string,
          kind: r['kind'] as StoredItem['kind'],
          iv: r['iv'] as string,
          data: r['data'] as string,
          seq: r['seq'] as number,
        };
        if (r['key'] !== null) item.key = r['key'] as string;
        return item;
      });
      return { items, more, last: a ? num(a['next_seq']) - 1 : 0 };
    },
    async status(accountId, now): Promise<StatusRow> {
      const a = st.account.get(accountId) as Row;
      return {
        devices: num((st.devices.get(accountId, now) as Row)['n']),
        items: num((st.itemCount.get(accountId) as Row)['n']),
        usedBytes: num(a['used_bytes']),
        quotaBytes: num(a['quota_bytes']),
        lastPushAt: a['last_push_at'] === null ? null : num(a['last_push_at']),
      };
    },
    async deleteAccount(accountId) {
      tx(() => {
        for (const table of ['items', 'sessions', 'prf_keys', 'credentials'])
          db.prepare(`DELETE FROM ${table} WHERE account_id = ?`).run(accountId);
        db.prepare('DELETE FROM challenges WHERE account_id = ?').run(accountId);
        db.prepare('DELETE FROM accounts WHERE id = ?').run(accountId);
      });
    },
    async sweep(now) {
      db.prepare('DELETE FROM challenges WHERE expires_at <= ?').run(now);
      db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(now);
    },
    async close() {
      await checkpointer.stop();
      if (db.isOpen) db.close();
    },
  };
}
