/**
 * Sync server speed (issue #24 item 9, server side), on SQLite and on PostgreSQL:
 * - accounts × events generated inside the database (`sync-generate.ts`): three accounts of real sealed answer
 *   events (~254-byte envelopes, AES-GCM), the rest rows of the same column lengths made by SQL;
 * - a new device's first sync of one account's events over HTTP (pages of 5,000): wall time seen by the
 *   client, the server's own time (Server-Timing), bytes on the wire without and with gzip; for a history pushed
 *   one event an item (the worst case), and for one a device left compacted (src/lib/sync/compact.ts: full
 *   batches and the longest tail of one-event items that does not yet start a compaction);
 * - incremental sync (push 10 events, pull what is new) with 200 concurrent clients, each syncing 10 times
 *   with 0–1 s between syncs: p50 and p99, seen by the client (all rounds, and the rounds on a connection already
 *   open) and by the server (Server-Timing), and each process's event loop delay (the client's shows when the 200
 *   clients' own process, not the server, was the wait);
 * - database size per 10,000 events.
 * The server runs in its own process (this file with `--serve`), rate limits off, so the clients' work does
 * not share its event loop.
 * Usage: node bench/sync.ts [--accounts=N] [--events=N] [--clients=N] [--only=sqlite|postgres] [--keep=DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNLIMITED } from '../server/sync/limits.ts';
import { startSyncServer } from '../server/sync/server.ts';
import { generate, sealedEvents } from './sync-generate.ts';
import { call, firstSync, resets } from './sync-http.ts';
import { COMPACT_LIMITS } from '../src/lib/sync/compact.ts';
import { SQLITE_FILE } from '../server/sync/sqlite.ts';

const ORIGIN = 'http://localhost:4321';
const pct = (xs: number[], p: number) =>
  xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

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
  firstSyncItems: number;
  /** The same for a history a device left compacted. */
  compactedServerMs: number;
  compactedBytes: number;
  compactedGzipBytes: number;
  compactedItems: number;
  incrementalP50: number;
  incrementalP99: number;
  /** The same from the second round on, when each client's connection is already open. */
  incrementalWarmP50: number;
  incrementalWarmP99: number;
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
  // --keep=DIR (SQLite): the generated database and its tokens stay in DIR, and a later run reuses them.
  const saved = where.data && join(where.data, 'bench-tokens.json');
  const { tokens, compacted, seconds } =
    saved && existsSync(saved)
      ? (JSON.parse(readFileSync(saved, 'utf8')) as { tokens: string[]; compacted?: string[]; seconds: number })
      : await generate(where, opts.accounts, opts.events, log);
  if (saved) writeFileSync(saved, JSON.stringify({ tokens, compacted, seconds }));
  const { url, child } = await serve(where.database ? ['--database', where.database] : ['--data', where.data!]);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.clients });
  try {
    // First sync of a new device: every page, plain and gzip; three runs on different accounts, the median. Once
    // for a history of one event an item, once for a compacted one (none in a --keep database made before).
    const mid = await firstSync(agent, url, tokens.slice(0, 3));
    const packed = compacted?.length ? await firstSync(agent, url, compacted) : null;
    // Incremental: each client pushes 10 events then pulls after its cursor, 10 rounds, all at once.
    // Each client's 10 pushes are sealed before the clock starts: the bench process plays 200 devices on one core,
    // and sealing in the loop would time the bench's own queue for that core, not the server.
    // Accounts of one event an item only (a compacted account's cursor would be past its last seq).
    const plain = tokens.filter((t) => !compacted?.includes(t));
    const clients = Array.from({ length: opts.clients }, (_, i) => ({
      token: plain[i % plain.length]!,
      cursor: String(opts.events),
      bodies: Array.from({ length: 10 }, () => JSON.stringify({ items: sealedEvents(10) })),
    }));
    const lat: number[] = [];
    /** Rounds after the first: on connections already open (keep-alive), as a device syncing again within 65 s. */
    const warmLat: number[] = [];
    const serverLat: number[] = [];
    const { monitorEventLoopDelay } = await import('node:perf_hooks');
    const eldC = monitorEventLoopDelay({ resolution: 5 });
    eldC.enable();
    const phases: Record<string, number[]> = {};
    await Promise.all(
      clients.map(async (c) => {
        for (let round = 0; round < 10; round++) {
          // Devices sync now and then, not back to back: each waits 0–1 s (uniform) before its next sync.
          await new Promise((r) => setTimeout(r, Math.random() * 1000));
          const t0 = performance.now();
          const p = await call(agent, `${url}/v1/push`, 'POST', c.token, c.bodies[round]);
          const q = await call(agent, `${url}/v1/pull?after=${c.cursor}&limit=5000`, 'GET', c.token);
          if (p.status !== 200 || q.status !== 200)
            throw new Error(`incremental sync: ${p.status} ${q.status} ${q.text}`);
          c.cursor = (JSON.parse(q.text) as { cursor: string }).cursor;
          lat.push(performance.now() - t0);
          if (round > 0) warmLat.push(performance.now() - t0);
          serverLat.push(p.serverMs + q.serverMs);
          for (const [name, r] of [
            ['push', p],
            ['pull', q],
          ] as const) {
            const named = Object.entries(r.phases).filter(([k]) => k !== 'app');
            for (const [k, ms] of named) (phases[`${name} ${k}`] ??= []).push(ms);
            // What the server's time holds besides its phases: waiting for the event loop, JSON out, headers.
            (phases[`${name} rest`] ??= []).push(r.serverMs - named.reduce((t, [, ms]) => t + ms, 0));
          }
        }
      }),
    );
    log(
      `  client event loop delay p99 ${(eldC.percentile(99) / 1e6).toFixed(1)} ms, max ${(eldC.max / 1e6).toFixed(1)} ms`,
    );
    if (resets.n) log(`  ${resets.n} connections reset and retried`);
    log(
      `  server phases p50 / p99 (ms): ${Object.entries(phases)
        .map(([k, xs]) => `${k} ${pct(xs, 0.5).toFixed(1)} / ${pct(xs, 0.99).toFixed(1)}`)
        .join('; ')}`,
    );
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
      firstSyncItems: mid.items,
      compactedServerMs: packed?.server ?? NaN,
      compactedBytes: packed?.bytes ?? NaN,
      compactedGzipBytes: packed?.gz ?? NaN,
      compactedItems: packed?.items ?? NaN,
      incrementalP50: pct(lat, 0.5),
      incrementalP99: pct(lat, 0.99),
      incrementalWarmP50: pct(warmLat, 0.5),
      incrementalWarmP99: pct(warmLat, 0.99),
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
  opts: { accounts?: number; events?: number; clients?: number; only?: string; keep?: string } = {},
  log: (s: string) => void = console.error,
) {
  const o = { accounts: opts.accounts ?? 100, events: opts.events ?? 10_000, clients: opts.clients ?? 200 };
  const rows: SyncBenchRow[] = [];
  if (!opts.only || opts.only === 'sqlite') {
    const dir = opts.keep ?? mkdtempSync(join(tmpdir(), 'bench-sync-'));
    mkdirSync(dir, { recursive: true });
    try {
      const file = join(dir, SQLITE_FILE);
      const size = () =>
        ['', '-wal'].reduce((s, x) => s + (statSync(file + x, { throwIfNoEntry: false })?.size ?? 0), 0);
      rows.push(await benchOne('SQLite', { data: dir }, size, o, log));
      log(JSON.stringify(rows.at(-1)));
    } finally {
      if (!opts.keep) rmSync(dir, { recursive: true, force: true });
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
    `| database | accounts × events | generate | first sync of ${o.events} (client / server) | on the wire (plain / gzip) | incremental p50 / p99, ${o.clients} clients (client; client on open connections; server) | size per 10,000 events |`,
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.db} | ${r.accounts} × ${r.events} | ${f(r.generateS)} s | ${f(r.firstSyncMs)} ms / ${f(r.firstSyncServerMs)} ms | ${f(r.firstSyncBytes / MB, 2)} MB / ${f(r.firstSyncGzipBytes / MB, 2)} MB | ${f(r.incrementalP50, 1)} / ${f(r.incrementalP99, 1)} ms; ${f(r.incrementalWarmP50, 1)} / ${f(r.incrementalWarmP99, 1)} ms; ${f(r.incrementalServerP50, 1)} / ${f(r.incrementalServerP99, 1)} ms | ${f(r.bytesPer10k / MB, 2)} MB |`,
    ),
    '',
    `A new device's first sync of ${o.events} events, by how the history was pushed (goal: ≤ 2 MB on the wire):`,
    '',
    '| database | history | items | server time | on the wire, plain / gzip (bytes) | gzip / 2 MB |',
    '|---|---|---|---|---|---|',
    ...rows.flatMap((r) => [
      `| ${r.db} | one event an item (version-1 envelopes), never compacted | ${r.firstSyncItems} | ${f(r.firstSyncServerMs)} ms | ${r.firstSyncBytes} / ${r.firstSyncGzipBytes} | ${f(r.firstSyncGzipBytes / (2 * MB), 3)} |`,
      `| ${r.db} | left compacted: full batches and ${COMPACT_LIMITS.minItems - 1} one-event items | ${r.compactedItems} | ${f(r.compactedServerMs)} ms | ${r.compactedBytes} / ${r.compactedGzipBytes} | ${f(r.compactedGzipBytes / (2 * MB), 3)} |`,
    ]),
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
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const eld = monitorEventLoopDelay({ resolution: 5 });
  eld.enable();
  process.once('SIGTERM', () => {
    console.error(
      `  server event loop delay p99 ${(eld.percentile(99) / 1e6).toFixed(1)} ms, max ${(eld.max / 1e6).toFixed(1)} ms`,
    );
    void s.stop().then(() => process.exit(0));
  });
} else if (import.meta.filename === process.argv[1]) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.split('=')[1];
  const num = (n: string) => (flag(n) === undefined ? undefined : Number(flag(n)));
  const { markdown } = await benchSync({
    ...(num('accounts') ? { accounts: num('accounts')! } : {}),
    ...(num('events') ? { events: num('events')! } : {}),
    ...(num('clients') ? { clients: num('clients')! } : {}),
    ...(flag('only') ? { only: flag('only')! } : {}),
    ...(flag('keep') ? { keep: flag('keep')! } : {}),
  });
  console.log(markdown);
}
