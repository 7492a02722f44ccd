/**
 * Generates the sync bench's accounts and events inside the database (issue #24 item 9 at full size: 1,000
 * accounts × 10,000 events). Accounts and sessions go through the store; the first `real` accounts get real
 * items: answer events from `test/fixtures/answer-events.ts` in the browser's envelope (`{ v: 1, event }`),
 * sealed with AES-GCM (random 12-byte IV, 16-byte HMAC-sized id), pushed through `store.push` (these are the
 * ones the first-sync figures read). The next `compacted` accounts hold the same kind of history as a device leaves
 * it after compaction (src/lib/sync/compact.ts), made by the browser's own code (`packEvents`, `encryptItem`, with
 * WebCrypto and CompressionStream, which Node 24 has): full batches, then the longest tail of one-event items that
 * does not yet start the next compaction (COMPACT_LIMITS.minItems − 1). Every other account's items are made by one SQL statement per batch of
 * accounts with the same column lengths (random hex in place of base64url: neither database compresses rows
 * this small, so the size on disk is the same).
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { makeAnswerEvents } from '../test/fixtures/answer-events.ts';
import { openStore } from '../server/sync/server.ts';
import { SQLITE_FILE } from '../server/sync/sqlite.ts';
import type { SyncItem } from '../src/protocol/sync.ts';
import { packEvents } from '../src/lib/sync/batch.ts';
import { COMPACT_LIMITS } from '../src/lib/sync/compact.ts';
import { encryptItem } from '../src/lib/sync/items.ts';
import { accountKeys } from '../src/lib/sync/keys.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

/** `n` real answer events of one account, sealed as the browser seals them (`src/lib/sync/items.ts`). */
export function sealedEvents(n: number, key = randomBytes(32)): SyncItem[] {
  return makeAnswerEvents(n, Date.now() - n * 630_000).map((event) => {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([c.update(JSON.stringify({ v: 1, event })), c.final(), c.getAuthTag()]);
    return {
      id: randomBytes(16).toString('base64url'),
      kind: 'event',
      iv: iv.toString('base64url'),
      data: data.toString('base64url'),
    };
  });
}

/**
 * `n` real answer events as a device leaves them after compaction, sealed by the browser's code: the older events
 * packed into full batches, the newest `tail` one to an item (pushed after each answer since the last compaction).
 */
export async function compactedHistory(n: number, tail = COMPACT_LIMITS.minItems - 1): Promise<SyncItem[]> {
  const keys = await accountKeys(new Uint8Array(randomBytes(32)));
  const events = makeAnswerEvents(n, Date.now() - n * 630_000);
  const cut = Math.max(0, n - tail);
  const runs = [...packEvents(events.slice(0, cut)), ...events.slice(cut).map((e) => [e])];
  return Promise.all(runs.map((run) => encryptItem(keys, { kind: 'events', events: run })));
}

/** Column lengths of a sealed event, in characters (mean `data` length rounded). */
export function itemShape(sample = sealedEvents(1000)) {
  const data = Math.round(sample.reduce((s, i) => s + i.data.length, 0) / sample.length);
  return { id: sample[0]!.id.length, iv: sample[0]!.iv.length, data };
}

/** Fills `where` with `accounts` × `events`; returns one session token per account and the seconds taken. */
export async function generate(
  where: { data?: string; database?: string },
  accounts: number,
  events: number,
  log: (s: string) => void,
  real = 3,
  compacted = 3,
) {
  const t0 = performance.now();
  const store = await openStore(where);
  const tokens: string[] = [];
  const ids: string[] = [];
  for (let a = 0; a < accounts; a++) {
    const id = randomBytes(16).toString('base64url');
    await store.createAccount({
      id,
      recoveryHash: sha(id),
      recoveryWrapped: { iv: 'A'.repeat(16), data: 'A'.repeat(64) },
      credential: { id: randomBytes(16).toString('base64url'), publicKey: 'AA', counter: 0, transports: [] },
      quotaBytes: 1 << 30,
      now: Date.now(),
    });
    const token = randomBytes(32).toString('base64url');
    await store.createSession(sha(token), id, Date.now(), Date.now() + 86_400_000);
    tokens.push(token);
    ids.push(id);
  }
  const push = async (id: string, all: SyncItem[]) => {
    for (let done = 0; done < all.length; done += 5000)
      await store.push(id, all.slice(done, done + 5000), [], Date.now());
  };
  for (const id of ids.slice(0, real)) await push(id, sealedEvents(events));
  for (const id of ids.slice(real, real + compacted)) await push(id, await compactedHistory(events));
  await store.close();
  log(
    `  accounts, sessions, ${Math.min(real, accounts)} real accounts and ${Math.max(0, Math.min(compacted, accounts - real))} compacted: ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  const bulk = ids.slice(real + compacted);
  const shape = itemShape();
  if (bulk.length) {
    if (where.database) await bulkPostgres(where.database, bulk, events, shape, log, t0);
    else await bulkSqlite(where.data!, bulk, events, shape, log, t0);
  }
  return { tokens, compacted: tokens.slice(real, real + compacted), seconds: (performance.now() - t0) / 1000, shape };
}

type Shape = ReturnType<typeof itemShape>;
const BATCH = 50;
const used = (events: number, s: Shape) => events * (s.id + s.iv + s.data);

async function bulkSqlite(dir: string, ids: string[], events: number, s: Shape, log: (s: string) => void, t0: number) {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(`${dir}/${SQLITE_FILE}`);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -1000000;');
  const hex = (n: number) => `substr(hex(randomblob(${Math.ceil(n / 2)})), 1, ${n})`;
  const ins = db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${events})
     INSERT INTO items (account_id, id, seq, kind, key, iv, data)
     SELECT ?, ${hex(s.id)}, i, 'event', NULL, ${hex(s.iv)}, ${hex(s.data)} FROM n`,
  );
  const upd = db.prepare('UPDATE accounts SET next_seq = ?, used_bytes = ?, last_push_at = ? WHERE id = ?');
  for (let b = 0; b < ids.length; b += BATCH) {
    db.exec('BEGIN IMMEDIATE');
    for (const id of ids.slice(b, b + BATCH)) {
      ins.run(id);
      upd.run(events + 1, used(events, s), Date.now(), id);
    }
    db.exec('COMMIT');
    log(
      `  ${Math.min(b + BATCH, ids.length)}/${ids.length} bulk accounts (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

async function bulkPostgres(
  url: string,
  ids: string[],
  events: number,
  s: Shape,
  log: (s: string) => void,
  t0: number,
) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  // Rows of random hex: two md5s per row, repeated to length (rows under 2 kB are never compressed).
  const hex = (n: number) =>
    `substr(repeat(md5(random()::text) || md5(random()::text), ${Math.ceil(n / 64)}), 1, ${n})`;
  // Indexes are built once at the end (sorting beats 10 million random B-tree inserts), like a restore.
  await c.query('SET maintenance_work_mem = $$1GB$$');
  await c.query('ALTER TABLE items DROP CONSTRAINT items_pkey');
  await c.query('DROP INDEX items_seq');
  await c.query('ALTER TABLE items DROP CONSTRAINT items_account_id_fkey');
  for (let b = 0; b < ids.length; b += BATCH) {
    const batch = ids.slice(b, b + BATCH);
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO items (account_id, id, seq, kind, key, iv, data)
       SELECT a, ${hex(s.id)}, i, 'event', NULL, ${hex(s.iv)}, ${hex(s.data)}
       FROM unnest($1::text[]) a, generate_series(1, ${events}) i`,
      [batch],
    );
    await c.query('UPDATE accounts SET next_seq = $1, used_bytes = $2, last_push_at = $3 WHERE id = ANY($4)', [
      events + 1,
      used(events, s),
      Date.now(),
      batch,
    ]);
    await c.query('COMMIT');
    log(`  ${b + batch.length}/${ids.length} bulk accounts (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await c.query('ALTER TABLE items ADD PRIMARY KEY (account_id, id)');
  await c.query('CREATE UNIQUE INDEX items_seq ON items(account_id, seq)');
  await c.query('ALTER TABLE items ADD FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE');
  await c.query('VACUUM ANALYZE items');
  log(`  indexes built (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  await c.end();
}
