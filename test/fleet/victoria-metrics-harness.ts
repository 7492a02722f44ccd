/**
 * Runs Debian's real VictoriaMetrics (single node, 1.79) for a test, as `prometheus-harness.ts` runs Prometheus:
 * on 127.0.0.1 on a free port from a temporary data folder, stopped and removed by `stop()`. An OpenMetrics file is
 * imported through `/api/v1/import/prometheus` (timestamps rewritten from OpenMetrics seconds to the Prometheus text
 * format's milliseconds), flushed so that queries see it, and its sample count checked against the engine's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './free-port.ts';

/** The options both engines' harnesses take (prometheus-harness.ts). */
export interface EngineOptions {
  /** OpenMetrics with timestamps (seconds), e.g. from `writeClusterOpenMetrics`. */
  openMetricsFile?: string;
  /** Prometheus YAML: its `scrape_configs` are scraped (VictoriaMetrics reads them with `-promscrape.config`). */
  config?: string;
  /** Require basic auth: the user, the password and its bcrypt hash (Prometheus's web config needs the hash). */
  basicAuth?: { user: string; password: string; bcrypt: string };
  /** Serve every path under this prefix (`-http.pathPrefix`), as a proxy or Mimir's `/prometheus` would. */
  pathPrefix?: string;
  /** Prometheus only: a data folder already backfilled (test/fleet/independent), copied in so the original stays. */
  blocksDir?: string;
  /** More flags for the engine, e.g. Prometheus's `--query.timeout=10m` (its default, 2m, ends a query first). */
  args?: string[];
  /** Prometheus only: start on this folder's data (one a halted Prometheus left) instead of a new one. */
  dir?: string;
}

/** A running engine: its base URL (with any path prefix), its temporary folder, and how to stop it. */
export interface RunningEngine {
  url: string;
  dir: string;
  /**
   * How long after a scrape the engine's instant queries (and range queries at steps under a minute) show it: 0 for
   * Prometheus, its `-search.latencyOffset` for VictoriaMetrics. A test that watches a live scrape waits this much more.
   */
  visibleAfterMs: number;
  stop(): Promise<void>;
  /** Prometheus only: stops it and keeps its folder (to start it again on the same data, backfillRules). */
  halt?(): Promise<void>;
}

/**
 * VictoriaMetrics' `-search.latencyOffset`: newer samples are left out of instant queries, and range queries at steps
 * under `-search.maxStepForPointsAdjustment` (1 m) repeat the reading before it instead. Backfilled history lies far
 * before it, so imports keep the default (30 s) a user runs. When VictoriaMetrics scrapes the targets itself each
 * scrape is written whole, and the tests use 1 s: at its default, the lab server's live view (the last ten refreshes,
 * 20 s at the tests' 1 s refresh) would hold nothing (README, "Beyond one Prometheus").
 */
export const VICTORIA_METRICS_LATENCY_MS = { imported: 30_000, scraping: 1_000 } as const;

export const hasVictoriaMetrics = (): boolean => spawnSync('victoria-metrics', ['-version']).status === 0;

/**
 * One OpenMetrics line as Prometheus text format: a sample's timestamp from seconds to integer milliseconds;
 * comments (`# TYPE`, `# HELP`, `# EOF`) and blank lines dropped (null). Label values may hold spaces and escaped
 * quotes, so the value and timestamp are read after the closing brace.
 * @example toPrometheusText('up{job="a b"} 1 1764500000.5') // 'up{job="a b"} 1 1764500000500'
 */
export function toPrometheusText(line: string): string | null {
  if (line === '' || line.startsWith('#')) return null;
  let end = line.search(/[{\s]/); // the end of the name
  if (line[end] === '{') {
    let quoted = false;
    for (end += 1; end < line.length; end++) {
      const c = line[end];
      if (quoted && c === '\\') end++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && c === '}') break;
    }
    end += 1;
  }
  const [value, ts, ...more] = line.slice(end).trim().split(/\s+/);
  if (!value || more.length) throw new Error(`not an OpenMetrics sample without exemplars: ${line}`);
  if (ts === undefined) return line;
  const s = Number(ts);
  if (!Number.isFinite(s)) throw new Error(`not a timestamp in seconds: ${line}`);
  return `${line.slice(0, end)} ${value} ${Math.round(s * 1000)}`;
}

/** Posts the file in bodies of about 4 MB; returns the samples sent and their first and last times (ms). */
async function importOpenMetrics(url: string, file: string, headers: Record<string, string>) {
  let body: string[] = [];
  let size = 0;
  let samples = 0;
  let minMs = Infinity;
  let maxMs = -Infinity;
  const post = async () => {
    if (!body.length) return;
    const res = await fetch(`${url}/api/v1/import/prometheus`, { method: 'POST', headers, body: body.join('\n') });
    if (!res.ok) throw new Error(`victoria-metrics refused the import: HTTP ${res.status} ${await res.text()}`);
    body = [];
    size = 0;
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const text = toPrometheusText(line);
    if (text === null) continue;
    const ms = Number(text.slice(text.lastIndexOf(' ') + 1));
    minMs = Math.min(minMs, ms);
    maxMs = Math.max(maxMs, ms);
    body.push(text);
    size += text.length + 1;
    samples++;
    if (size > 4 << 20) await post();
  }
  await post();
  return { samples, minMs, maxMs };
}

/**
 * The number of samples the engine holds between `minMs` and `maxMs` (both included), over every series: counted a day
 * at a time (a week of 10,000 GPUs is half a billion samples), each `count_over_time` over (previous end, end], and a
 * metric name at a time (every series at once is more than VictoriaMetrics' `-search.maxUniqueTimeseries` lets one
 * query match at 10,000 GPUs: 300,000 on this machine). `nocache=1` keeps VictoriaMetrics' result cache out, and each
 * call's selector differs (`poll`) so that its cache of the series a selector matched, filled while the index was still
 * being written, is not read back either.
 */
async function heldSamples(url: string, minMs: number, maxMs: number, headers: Record<string, string>, poll: number) {
  const DAY_MS = 86_400_000;
  const names = new URLSearchParams({ start: `${(minMs - 1) / 1000}`, end: `${maxMs / 1000}`, nocache: '1' });
  const listed = await fetch(`${url}/api/v1/label/__name__/values?${names}`, { headers });
  if (!listed.ok)
    throw new Error(`victoria-metrics could not list its metric names: HTTP ${listed.status} ${await listed.text()}`);
  let held = 0;
  for (const name of ((await listed.json()) as { data?: string[] }).data ?? [])
    for (let from = minMs - 1; from < maxMs; from += DAY_MS) {
      const to = Math.min(maxMs, from + DAY_MS);
      const q = new URLSearchParams({
        query: `sum(count_over_time({__name__=${JSON.stringify(name)}, __name__!="saturate_poll_${poll}"}[${to - from}ms]))`,
        time: `${to / 1000}`,
        nocache: '1',
      });
      const res = await fetch(`${url}/api/v1/query?${q}`, { headers });
      if (!res.ok)
        throw new Error(`victoria-metrics could not count its samples: HTTP ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
      held += Number(body.data?.result?.[0]?.value[1] ?? 0);
    }
  return held;
}

/**
 * Flushes VictoriaMetrics until it holds `samples` between `minMs` and `maxMs` (both included): what was imported is
 * then what every query reads. One flush is not always enough: `/internal/force_flush` turns the rows and index entries
 * still buffered into searchable parts, but not those its own once-a-second flusher has taken and not yet finished (a
 * CI run on a loaded machine found 32,604 of 410,092 samples after one). Gives up after `timeoutMs`, naming the count.
 */
export async function flushUntilHeld(
  url: string,
  want: { samples: number; minMs: number; maxMs: number; what: string },
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let poll = 0; ; poll++) {
    const flushed = await fetch(`${url}/internal/force_flush`, { headers });
    if (!flushed.ok) throw new Error(`victoria-metrics could not flush: HTTP ${flushed.status}`);
    if (!want.samples) return;
    const held = await heldSamples(url, want.minMs, want.maxMs, headers, poll);
    if (held === want.samples) return;
    if (held > want.samples || Date.now() > deadline)
      throw new Error(`victoria-metrics holds ${held} of the ${want.samples} samples in ${want.what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every row VictoriaMetrics has added to its storage since it started (`vm_rows_added_to_storage_total`). */
export async function rowsAdded(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { ...headers, connection: 'close' } });
  const m = /^vm_rows_added_to_storage_total (\d+)$/m.exec(await res.text());
  if (!res.ok || !m) throw new Error(`victoria-metrics did not report the rows it added: HTTP ${res.status}`);
  return Number(m[1]);
}

/**
 * Flushes VictoriaMetrics until it holds, between `minMs` and `maxMs`, every row it has added to its storage: after a
 * writer whose count the caller does not know (vmalert's replay writes its rules' points by remote write), all of it
 * is then searchable. Every row must lie in the range (else this gives up after `timeoutMs`, naming the count).
 */
export async function flushUntilAllHeld(
  url: string,
  range: { minMs: number; maxMs: number; what: string },
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<void> {
  await flushUntilHeld(url, { ...range, samples: await rowsAdded(url, headers) }, headers, timeoutMs);
}

/** Starts VictoriaMetrics, imports `openMetricsFile` (if given) and scrapes `config`'s targets (if any). */
export async function startVictoriaMetrics(opts: EngineOptions = {}): Promise<RunningEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-vm-'));
  const scrapes = Boolean(opts.config && /\bscrape_configs\s*:/.test(opts.config));
  const latencyMs = VICTORIA_METRICS_LATENCY_MS[scrapes ? 'scraping' : 'imported'];
  const args = [
    `-storageDataPath=${join(dir, 'data')}`,
    // The tests' data lies days in the past; the default (one month) would refuse it once the calendar moves on.
    '-retentionPeriod=100y',
    // Its default (1 min) closes a kept-alive connection a test left idle, e.g. while vmalert's replay (spawnSync, a
    // minute or more for every rule of saturate-rules.yml on a loaded machine) holds the event loop: the next fetch
    // then takes the closed socket ("other side closed").
    '-http.idleConnTimeout=1h',
    '-loggerLevel=ERROR',
    `-search.latencyOffset=${latencyMs}ms`,
  ];
  if (opts.config && scrapes) {
    const configFile = join(dir, 'scrape.yml');
    writeFileSync(configFile, opts.config);
    args.push(`-promscrape.config=${configFile}`, '-promscrape.config.strictParse');
  }
  if (opts.basicAuth)
    args.push(`-httpAuth.username=${opts.basicAuth.user}`, `-httpAuth.password=${opts.basicAuth.password}`);
  if (opts.pathPrefix) args.push(`-http.pathPrefix=${opts.pathPrefix}`);
  if (opts.args) args.push(...opts.args);
  const headers: Record<string, string> = opts.basicAuth
    ? { authorization: `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}` }
    : {};
  const port = await freePort();
  args.push(`-httpListenAddr=127.0.0.1:${port}`);
  const child: ChildProcess = spawn('victoria-metrics', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}${opts.pathPrefix?.replace(/\/$/, '') ?? ''}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`victoria-metrics exited ${child.exitCode}: ${stderr}`);
      try {
        if ((await fetch(`${url}/health`, { headers })).ok) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`victoria-metrics not ready after 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    if (opts.openMetricsFile) {
      const sent = await importOpenMetrics(url, opts.openMetricsFile, headers);
      await flushUntilHeld(url, { ...sent, what: opts.openMetricsFile }, headers);
    }
  } catch (e) {
    const exited = child.exitCode !== null ? ` (victoria-metrics exited ${child.exitCode})` : '';
    await stop();
    throw new Error(`${(e as Error).message}${exited}${stderr ? `: ${stderr}` : ''}`, { cause: e });
  }
  return { url, dir, visibleAfterMs: latencyMs, stop };
}
