/**
 * Runs Debian's real Prometheus (2.42) for a test: blocks backfilled with promtool from an OpenMetrics file,
 * served on 127.0.0.1 on a free port from a temporary data folder, stopped and removed by `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How long a test that audits a real Prometheus may run, and its hooks (start, backfill, stop) may take. Above the
 * audit's own per-query limit (30 s, server/fleet), so on a slow or loaded machine the audit's own timeout answers
 * first and the test fails with its message rather than a test-runner budget (a 7-day audit took over 20 s on a
 * 2-core machine under load).
 */
export const PROMETHEUS_TEST_LIMITS = { testTimeout: 180_000, hookTimeout: 120_000 } as const;

export const hasPrometheus = (): boolean =>
  spawnSync('prometheus', ['--version']).status === 0 && spawnSync('promtool', ['--version']).status === 0;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** Backfills `openMetricsFile` (if given) and starts Prometheus with `config` (YAML, default: no scrapes). */
export async function startPrometheus(
  opts: {
    openMetricsFile?: string;
    /** A data folder already backfilled (test/fleet/independent): copied in, so the original stays as it is. */
    blocksDir?: string;
    /** More flags for Prometheus, e.g. `--query.timeout=10m` (its default, 2m, ends a query first). */
    args?: string[];
    config?: string;
    /** Require basic auth (Prometheus's own `--web.config.file`): the user, the password and its bcrypt hash. */
    basicAuth?: { user: string; password: string; bcrypt: string };
  } = {},
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-prom-'));
  const data = join(dir, 'data');
  if (opts.blocksDir) cpSync(opts.blocksDir, data, { recursive: true });
  if (opts.openMetricsFile) {
    const r = spawnSync(
      'promtool',
      ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', opts.openMetricsFile, data],
      {
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`promtool could not backfill: ${r.stderr || r.stdout}`);
  }
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, opts.config ?? 'global:\n  scrape_interval: 15s\n');
  const webArgs: string[] = [];
  if (opts.basicAuth) {
    const web = join(dir, 'web.yml');
    writeFileSync(web, `basic_auth_users:\n  ${opts.basicAuth.user}: ${opts.basicAuth.bcrypt}\n`);
    webArgs.push(`--web.config.file=${web}`);
  }
  const readyHeaders: Record<string, string> = opts.basicAuth
    ? { authorization: `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}` }
    : {};
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${data}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=3650d',
      '--query.lookback-delta=5m',
      '--log.level=error',
      ...webArgs,
      ...(opts.args ?? []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/-/ready`, { headers: readyHeaders })).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`prometheus not ready after 30 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dir,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
