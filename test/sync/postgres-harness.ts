/**
 * Runs Debian's real PostgreSQL 15 for a test or the bench: `initdb` in a temporary folder, `postgres` on
 * 127.0.0.1 on a free port, a `saturate` database, stopped and removed by `stop()`. initdb and postgres refuse
 * to run as root: when this process is root they run as the `postgres` user (Node's spawn `uid`/`gid`, what
 * `runuser -u postgres --` does), and the folder is handed to that user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../fleet/prometheus-harness.ts';

/** Where Debian's postgresql package puts the server's programs. */
export const PG_BIN = process.env['PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

export const hasPostgres = (): boolean => existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'postgres'));

/** How long tests on a real PostgreSQL may take on a loaded machine. */
export const POSTGRES_TEST_LIMITS = { testTimeout: 120_000, hookTimeout: 120_000 } as const;

/** A running PostgreSQL. */
export interface RunningPostgres {
  /** postgres://saturate@127.0.0.1:PORT/saturate */
  url: string;
  port: number;
  /** The database as `pg_dump` writes it (plain SQL). */
  dump(): Buffer;
  stop(): Promise<void>;
}

/** The uid and gid to run the server as: ours, or the postgres user's when we are root. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const user of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  }
  throw new Error('Running as root, and there is no postgres or nobody user to run PostgreSQL as.');
}

/**
 * Starts PostgreSQL. `fast` (default true) turns off fsync: the tests need no durability; the bench passes false.
 * @example const db = await startPostgres(); try { … db.url … } finally { await db.stop(); }
 */
export async function startPostgres(opts: { fast?: boolean } = {}): Promise<RunningPostgres> {
  if (!hasPostgres())
    throw new Error(`PostgreSQL 15 is not installed (${PG_BIN}): apt-get install postgresql (or set PG_BIN).`);
  const dir = mkdtempSync(join(tmpdir(), 'saturate-pg-'));
  const data = join(dir, 'data');
  const user = runAs();
  if (user) chownSync(dir, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    join(PG_BIN, 'initdb'),
    ['-D', data, '-U', 'saturate', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
    { encoding: 'utf8', cwd: dir, ...as },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const fast = opts.fast ?? true;
  const child: ChildProcess = spawn(
    join(PG_BIN, 'postgres'),
    [
      '-D',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'max_connections=200',
      ...(fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, ...as },
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const admin = `postgres://saturate@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited ${child.exitCode}: ${stderr}`);
    const c = new pg.Client({ connectionString: admin });
    try {
      await c.connect();
      await c.query('CREATE DATABASE saturate');
      await c.end();
      break;
    } catch {
      await c.end().catch(() => {});
    }
    if (Date.now() > deadline) throw new Error(`postgres not ready after 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const url = `postgres://saturate@127.0.0.1:${port}/saturate`;
  return {
    url,
    port,
    dump() {
      const r = spawnSync(
        join(PG_BIN, 'pg_dump'),
        ['-h', '127.0.0.1', '-p', String(port), '-U', 'saturate', 'saturate'],
        {
          maxBuffer: 1 << 30,
        },
      );
      if (r.status !== 0) throw new Error(`pg_dump failed: ${r.stderr.toString()}`);
      return r.stdout;
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT'); // fast shutdown
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
