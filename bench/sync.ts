/**
 * Sync server speed (issue #24 item 9, server side), on SQLite and on PostgreSQL:
 * - accounts × events generated straight through the storage interface (`store.push`, 5,000 per call) with
 *   random bytes as ciphertext (what AES-GCM output looks like: incompressible), ~150-byte events;
 * - a new device's first sync of one account's events over HTTP (pages of 5,000): wall time seen by the
 *   client, the server's own time (Server-Timing), bytes on the wire without and with gzip;
 * - incremental sync (push 10 events, pull what is new) with 200 concurrent clients, each syncing 10 times
 *   with 0–1 s between syncs: p50 and p99, seen by the client and by the server (Server-Timing);
 * - database size per 10,000 events.
 * The server runs in its own process (this file with `--serve`), rate limits off, so the clients' work does
 * not share its event loop.
 * Usage: node bench/sync.ts [--accounts=N] [--events=N] [--clients=N] [--only=sqlite|postgres]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNLIMITED } from '../server/sync/limits.ts';
import { openStore, startSyncServer } from '../server/sync/server.ts';
import { SQLITE_FILE } from '../server/sync/sqlite.ts';
import type { SyncItem } from '../src/protocol/sync.ts';

const ORIGIN = 'http://localhost:4321';
/** Plaintext bytes of one event (ids, card, question, answer, time as JSON) before AES-GCM adds 16. */
const EVENT_PLAINTEXT = 150;

/** Fake ciphertext items: ids and data random, sized like sealed events. */
function items(n: number, kind: SyncItem['kind'] = 'event'): SyncItem[] {
  const ids = randomBytes(16 * n);
  const ivs = randomBytes(12 * n);
  const data = randomBytes((EVENT_PLAINTEXT + 16) * n);
  return Array.from({ length: n }, (_, i) => ({
    id: ids.subarray(i * 16, i * 16 + 16).toString('base64url'),
    kind,
    iv: ivs.subarray(i * 12, i * 12 + 12).toString('base64url'),
    data: data.subarray(i * 166, i * 166 + 166).toString('base64url'),
  }));
}

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
const pct = (xs: number[], p: number) =>
  xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

/** Generates `accounts` accounts of `events` events each; returns one session token per account. */
async function generate(
  where: { data?: string; database?: string },
  accounts: number,
  events: number,
  log: (s: string) => void,
) {
  const store = await openStore(where);
  const tokens: string[] = [];
  const t0 = performance.now();
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
    for (let done = 0; done < events; done += 5000)
      await store.push(id, items(Math.min(5000, events - done)), [], Date.now());
    if ((a + 1) % Math.max(1, Math.floor(accounts / 10)) === 0)
      log(`  ${a + 1}/${accounts} accounts (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await store.close();
  return { tokens, seconds: (performance.now() - t0) / 1000 };
}

/** Connections the server reset under load (each retried once, and counted in the report). */
let resets = 0;

/** One HTTP call with raw byte counts (undici's fetch would decompress out of sight); a reset is retried once. */
async function call(agent: Agent, url: string, method: string, token: string, body?: string, gzip = false) {
  try {
    return await call1(agent, url, method, token, body, gzip);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') throw e;
    resets++;
    return call1(agent, url, method, token, body, gzip);
  }
}

function call1(agent: Agent, url: string, method: string, token: string, body?: string, gzip = false) {
  return new Promise<{ status: number; bytes: number; text: string; serverMs: number; ms: number }>(
    (resolve, reject) => {
      const t0 = performance.now();
      const req = request(
        url,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const timing = /dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
            resolve({
              status: res.statusCode ?? 0,
              bytes: raw.length,
              text: gzip ? '' : raw.toString(),
              serverMs: timing ? Number(timing[1]) : NaN,
              ms: performance.now() - t0,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** Starts this file with --serve in a child process; resolves with its URL. */
function serve(where: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve', ...where], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^url (\S+)/m.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (c) => reject(new Error(`bench sync server exited ${c}`)));
  });
}

/** The figures of one database. */
export interface SyncBenchRow {
  db: string;
  accounts: number;
  events: number;
  generateS: number;
  firstSyncMs: number;
  firstSyncServerMs: number;
  firstSyncBytes: number;
  firstSyncGzipBytes: number;
  incrementalP50: number;
  incrementalP99: number;
  /** Server-Timing of the push and the pull, summed. */
  incrementalServerP50: number;
  incrementalServerP99: number;
  clients: number;
  bytesPer10k: number;
}

/** Runs the bench on one database; `where` is the server's flags (--data DIR or --database URL). */
async function benchOne(
  db: string,
  where: { data?: string; database?: string },
  size: () => number,
  opts: { accounts: number; events: number; clients: number },
  log: (s: string) => void,
): Promise<SyncBenchRow> {
  log(`sync bench on ${db}: generating ${opts.accounts} accounts × ${opts.events} events`);
  const { tokens, seconds } = await generate(where, opts.accounts, opts.events, log);
  const { url, child } = await serve(where.database ? ['--database', where.database] : ['--data', where.data!]);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.clients });
  try {
    // First sync of a new device: every page, plain and gzip; three runs on different accounts, the median.
    const runs: { ms: number; server: number; bytes: number; gz: number }[] = [];
    for (const token of tokens.slice(0, 3)) {
      let after = '0';
      const run = { ms: 0, server: 0, bytes: 0, gz: 0 };
      for (;;) {
        const r = await call(agent, `${url}/v1/pull?after=${after}&limit=5000`, 'GET', token);
        const z = await call(agent, `${url}/v1/pull?after=${after}&limit=5000`, 'GET', token, undefined, true);
        run.ms += r.ms;
        run.server += r.serverMs;
        run.bytes += r.bytes;
        run.gz += z.bytes;
        const page = JSON.parse(r.text) as { cursor: string; more: boolean };
        after = page.cursor;
        if (!page.more) break;
      }
      runs.push(run);
    }
    const mid = runs.sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
    // Incremental: each client pushes 10 events then pulls after its cursor, 10 rounds, all at once.
    const clients = Array.from({ length: opts.clients }, (_, i) => ({
      token: tokens[i % tokens.length]!,
      cursor: String(opts.events),
    }));
    const lat: number[] = [];
    const serverLat: number[] = [];
    await Promise.all(
      clients.map(async (c) => {
        for (let round = 0; round < 10; round++) {
          // Devices sync now and then, not back to back: each waits 0–1 s (uniform) before its next sync.
          await new Promise((r) => setTimeout(r, Math.random() * 1000));
          const t0 = performance.now();
          const p = await call(agent, `${url}/v1/push`, 'POST', c.token, JSON.stringify({ items: items(10) }));
          const q = await call(agent, `${url}/v1/pull?after=${c.cursor}&limit=5000`, 'GET', c.token);
          if (p.status !== 200 || q.status !== 200)
            throw new Error(`incremental sync: ${p.status} ${q.status} ${q.text}`);
          c.cursor = (JSON.parse(q.text) as { cursor: string }).cursor;
          lat.push(performance.now() - t0);
          serverLat.push(p.serverMs + q.serverMs);
        }
      }),
    );
    if (resets) log(`  ${resets} connections reset and retried`);
    const totalEvents = opts.accounts * opts.events + opts.clients * 100;
    return {
      db,
      accounts: opts.accounts,
      events: opts.events,
      generateS: seconds,
      firstSyncMs: mid.ms,
      firstSyncServerMs: mid.server,
      firstSyncBytes: mid.bytes,
      firstSyncGzipBytes: mid.gz,
      incrementalP50: pct(lat, 0.5),
      incrementalP99: pct(lat, 0.99),
      incrementalServerP50: pct(serverLat, 0.5),
      incrementalServerP99: pct(serverLat, 0.99),
      clients: opts.clients,
      bytesPer10k: (size() / totalEvents) * 10_000,
    };
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
  }
}

const MB = 1024 * 1024;

/** Runs the bench on SQLite and on PostgreSQL (started by the test harness); returns rows and Markdown. */
export async function benchSync(
  opts: { accounts?: number; events?: number; clients?: number; only?: string } = {},
  log: (s: string) => void = console.error,
) {
  const o = { accounts: opts.accounts ?? 100, events: opts.events ?? 10_000, clients: opts.clients ?? 200 };
  const rows: SyncBenchRow[] = [];
  if (!opts.only || opts.only === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-sync-'));
    try {
      const file = join(dir, SQLITE_FILE);
      const size = () =>
        ['', '-wal'].reduce((s, x) => s + (statSync(file + x, { throwIfNoEntry: false })?.size ?? 0), 0);
      rows.push(await benchOne('SQLite', { data: dir }, size, o, log));
      log(JSON.stringify(rows.at(-1)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!opts.only || opts.only === 'postgres') {
    const { startPostgres } = await import('../test/sync/postgres-harness.ts');
    const pg = await startPostgres({ fast: false });
    try {
      let bytes = 0;
      const { default: pgLib } = await import('pg');
      const measure = async () => {
        const c = new pgLib.Client({ connectionString: pg.url });
        await c.connect();
        bytes = Number((await c.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
        await c.end();
      };
      const row = await benchOne('PostgreSQL 15', { database: pg.url }, () => bytes, o, log);
      await measure();
      row.bytesPer10k = (bytes / (o.accounts * o.events + o.clients * 100)) * 10_000;
      rows.push(row);
      log(JSON.stringify(row));
    } finally {
      await pg.stop();
    }
  }
  const f = (n: number, d = 0) => n.toFixed(d);
  const markdown = [
    `| database | accounts × events | generate | first sync of ${o.events} (client / server) | on the wire (plain / gzip) | incremental p50 / p99, ${o.clients} clients (client; server) | size per 10,000 events |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.db} | ${r.accounts} × ${r.events} | ${f(r.generateS)} s | ${f(r.firstSyncMs)} ms / ${f(r.firstSyncServerMs)} ms | ${f(r.firstSyncBytes / MB, 2)} MB / ${f(r.firstSyncGzipBytes / MB, 2)} MB | ${f(r.incrementalP50, 1)} / ${f(r.incrementalP99, 1)} ms; ${f(r.incrementalServerP50, 1)} / ${f(r.incrementalServerP99, 1)} ms | ${f(r.bytesPer10k / MB, 2)} MB |`,
    ),
  ].join('\n');
  return { rows, markdown };
}

if (process.argv.includes('--serve')) {
  const arg = (n: string) => process.argv[process.argv.indexOf(n) + 1];
  const s = await startSyncServer({
    port: 0,
    ...(process.argv.includes('--database') ? { database: arg('--database')! } : { data: arg('--data')! }),
    allowOrigin: ORIGIN,
    limits: UNLIMITED,
  });
  console.log(`url ${s.url}`);
  process.once('SIGTERM', () => void s.stop().then(() => process.exit(0)));
} else if (import.meta.filename === process.argv[1]) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.split('=')[1];
  const num = (n: string) => (flag(n) === undefined ? undefined : Number(flag(n)));
  const { markdown } = await benchSync({
    ...(num('accounts') ? { accounts: num('accounts')! } : {}),
    ...(num('events') ? { events: num('events')! } : {}),
    ...(num('clients') ? { clients: num('clients')! } : {}),
    ...(flag('only') ? { only: flag('only')! } : {}),
  });
  console.log(markdown);
}
