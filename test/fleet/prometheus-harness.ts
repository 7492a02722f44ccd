/**
 * Runs the fleet tests' engine for a test: Debian's real Prometheus (2.42), blocks backfilled with promtool from an
 * OpenMetrics file, or Debian's VictoriaMetrics (1.79, victoria-metrics-harness.ts) with the same file imported,
 * served on 127.0.0.1 on a free port from a temporary data folder, stopped and removed by `stop()`.
 * `startPrometheus` starts the engine `FLEET_ENGINE` names (vitest.config.ts runs the fleet tests on each), so a
 * test written against Prometheus runs unchanged on VictoriaMetrics.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { writeClusterOpenMetrics, type SimHost } from './cluster.ts';
import {
  hasVictoriaMetrics,
  startVictoriaMetrics,
  type EngineOptions,
  type RunningEngine,
} from './victoria-metrics-harness.ts';

export { freePort };

/** The engines the fleet tests run against: the audit speaks only the Prometheus query API to either. */
export const FLEET_ENGINES = ['prometheus', 'victoria-metrics'] as const;
export type FleetEngine = (typeof FLEET_ENGINES)[number];

/**
 * The engine `FLEET_ENGINE` names (default: prometheus); anything else is an error that lists the choices.
 * @example fleetEngine({ FLEET_ENGINE: 'victoria-metrics' }) // 'victoria-metrics'
 */
export function fleetEngine(env: Record<string, string | undefined> = process.env): FleetEngine {
  const e = env['FLEET_ENGINE'] || 'prometheus';
  if (!(FLEET_ENGINES as readonly string[]).includes(e))
    throw new Error(`FLEET_ENGINE=${e} is not an engine the fleet tests run: use ${FLEET_ENGINES.join(' or ')}`);
  return e as FleetEngine;
}

/**
 * How long a test that audits a real Prometheus may run, and its hooks (start, backfill, stop) may take. Above the
 * audit's own per-query limit (30 s, server/fleet), so on a slow or loaded machine the audit's own timeout answers
 * first and the test fails with its message rather than a test-runner budget (a 7-day audit took over 20 s on a
 * 2-core machine under load).
 */
export const PROMETHEUS_TEST_LIMITS = { testTimeout: 180_000, hookTimeout: 120_000 } as const;

/** Whether this run's engine (`FLEET_ENGINE`) is installed: Prometheus with promtool, or VictoriaMetrics. */
export const hasPrometheus = (): boolean =>
  fleetEngine() === 'victoria-metrics'
    ? hasVictoriaMetrics()
    : spawnSync('prometheus', ['--version']).status === 0 && spawnSync('promtool', ['--version']).status === 0;

export type RunningPrometheus = RunningEngine;

/**
 * Starts this run's engine (`FLEET_ENGINE`, default Prometheus) with `openMetricsFile`'s samples and `config`'s
 * scrapes (Prometheus YAML, default: none).
 */
export function startPrometheus(opts: EngineOptions = {}): Promise<RunningEngine> {
  return startEngine(fleetEngine(), opts);
}

/** Starts `engine` with `opts`: for a benchmark that runs both side by side. */
export function startEngine(engine: FleetEngine, opts: EngineOptions = {}): Promise<RunningEngine> {
  return engine === 'victoria-metrics' ? startVictoriaMetrics(opts) : startRealPrometheus(opts);
}

/** Backfills `openMetricsFile` (if given) with promtool and starts Prometheus with `config`. */
async function startRealPrometheus(opts: EngineOptions): Promise<RunningEngine> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'saturate-prom-'));
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
      ...(opts.pathPrefix ? [`--web.route-prefix=${opts.pathPrefix}`] : []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}${opts.pathPrefix?.replace(/\/$/, '') ?? ''}`;
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
  const halt = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  };
  return {
    url,
    dir,
    visibleAfterMs: 0,
    halt,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Backfills the recording rules in `rulesFile` from `startS` to `endS` over the data `prom` holds
 * (`promtool tsdb create-blocks-from rules`, which evaluates them through Prometheus's API), then restarts Prometheus
 * on its data with the new blocks in it. Returns the restarted Prometheus (the one given is halted).
 */
export async function backfillRules(
  prom: RunningPrometheus,
  rulesFile: string,
  startS: number,
  endS: number,
): Promise<RunningPrometheus> {
  const out = join(prom.dir, 'rule-blocks');
  const r = spawnSync(
    'promtool',
    [
      'tsdb',
      'create-blocks-from',
      'rules',
      '--quiet',
      `--url=${prom.url}`,
      `--start=${startS}`,
      `--end=${endS}`,
      `--output-dir=${out}`,
      rulesFile,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`promtool could not backfill the rules: ${r.stderr || r.stdout}`);
  if (!prom.halt) throw new Error('backfillRules writes TSDB blocks: it needs Prometheus, not VictoriaMetrics');
  await prom.halt();
  for (const block of readdirSync(out)) renameSync(join(out, block), join(prom.dir, 'data', block));
  return startEngine('prometheus', { dir: prom.dir });
}

/**
 * Backfills each rules file in turn (backfillRules): a file whose rules read another's recorded series (the 5-minute
 * group reads the 1-minute one) comes after it, once those series are in Prometheus.
 */
export async function backfillRulesInTurn(
  prom: RunningPrometheus,
  rulesFiles: readonly string[],
  startS: number,
  endS: number,
): Promise<RunningPrometheus> {
  for (const file of rulesFiles) prom = await backfillRules(prom, file, startS, endS);
  return prom;
}

/** deploy/prometheus/saturate-rules.yml: the recording rules a platform team deploys. */
export const RULES_FILE = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus', 'saturate-rules.yml');

/**
 * Prometheus holding `hosts` simulated from `fromS` to `endS` at a 30 s scrape, with RULES_FILE and then each of
 * `moreRules` (rules files' YAML: the 5-minute group, which reads the 1-minute one, or an older file's rules)
 * backfilled in turn over [`rulesFromS`, `endS` + 60 s] (backfillRulesInTurn).
 */
export async function prometheusWithRules(o: {
  hosts: SimHost[];
  fromS: number;
  endS: number;
  rulesFromS: number;
  moreRules: readonly string[];
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-rules-'));
  try {
    const cluster = join(dir, 'cluster.om');
    await writeClusterOpenMetrics(cluster, o.hosts, o.fromS * 1000, o.endS * 1000, 30_000);
    const more = o.moreRules.map((yaml, i) => {
      const file = join(dir, `rules-${i}.yml`);
      writeFileSync(file, yaml);
      return file;
    });
    const prom = await startPrometheus({ openMetricsFile: cluster });
    return await backfillRulesInTurn(prom, [RULES_FILE, ...more], o.rulesFromS, o.endS + 60);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One query the audit sent: its API path (`/api/v1/query_range`…) and its form (the client posts each as a form). */
export interface SentQuery {
  path: string;
  form: URLSearchParams;
}

/** A fetch that passes every request on and keeps, in `sent`, each query sent as a form: what a client asked for. */
export function recordingFetch(): { fetchImpl: typeof fetch; sent: SentQuery[] } {
  const sent: SentQuery[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string')
      sent.push({ path: new URL(String(input)).pathname, form: new URLSearchParams(init.body) });
    return fetch(input, init);
  };
  return { fetchImpl, sent };
}
