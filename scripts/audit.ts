/**
 * `npm run audit -- --prometheus <url> [--window 24h] [--selector '{…}'] [--price-per-gpu-hour N]
 * [--json | --out report.md]`: where a fleet's GPUs are wasted and what it costs, read from the Prometheus
 * that scrapes dcgm-exporter. Exit codes (EXIT): 0 report written, 1 a flag or a local file is wrong
 * (credential files included, checked before any query), 2 Prometheus unreachable or refusing, 3 no GPU
 * matched the selector, 4 Prometheus too slow or its answer too large.
 */
import { writeFileSync } from 'node:fs';
import { checkOutPath } from './out-path.ts';
import { parseArgs } from 'node:util';
import { audit } from '../server/fleet/audit.ts';
import {
  createPrometheusClient,
  DEFAULT_QUERY_TIMEOUT_S,
  MAX_QUERY_TIMEOUT_S,
  MAX_RESPONSE_BYTES,
  parseQueryTimeout,
  MAX_SERIES,
  PrometheusError,
  readCredentialFile,
} from '../server/fleet/prometheus-api.ts';
import { selectorMatchers } from '../server/fleet/collect.ts';
import type { OnBatch } from '../server/fleet/batches.ts';
import { terminalText } from '../server/fleet/plain-text.ts';
import { parseWindow, toJson, toMarkdown } from '../server/fleet/report.ts';

export const EXIT = { ok: 0, usage: 1, prometheus: 2, noMatch: 3, tooSlow: 4 } as const;

export const AUDIT_USAGE = `Usage: npm run audit -- --prometheus <url> [options]

Reads dcgm-exporter's series from your Prometheus and reports, per GPU, what it is doing now and how many
GPU-hours of the window it spent idle, idle but allocated, starved, busy in time but not in space,
throttled or hung, with what those hours cost.

  --prometheus <url>              Prometheus's address, e.g. http://prometheus:9090 (required)
  --prometheus-token-file <file>  a bearer token for Prometheus, read from a file
  --prometheus-basic-auth-file <file>  "user:password" for Prometheus, read from a file
  --selector '{label="value"}'    which GPUs, e.g. '{hostname=~"gpu-.*"}' (default: every GPU)
  --window <1h|24h|7d|N[smhd]>    how far back (default 24h)
  --end <ISO time>                the end of the window (default: now)
  --price-per-gpu-hour <usd>      price every GPU's wasteful hours at this (default: each model's list price
                                  in src/lib/gpu-prices.ts, sourced and dated; models without one: hours only)
  --query-timeout <seconds>       how long one query may take, whole answer included (default
                                  ${DEFAULT_QUERY_TIMEOUT_S}, at most ${MAX_QUERY_TIMEOUT_S}); longer exits 4 and names the query
  --max-response-mb <MB>          the largest answer read from Prometheus (default 64)
  --max-series <N>                the most series one answer may hold (default 50000, some 3,000 GPUs)
  --no-gzip                       ask Prometheus for uncompressed answers: about a fifth less of its CPU on
                                  an audit, 6–11× the bytes on the wire (for an audit that runs near it)
  --raw-series                    read the window from raw series even where Saturate's recording rules
                                  (deploy/prometheus/saturate-rules.yml) cover it; the report says which it read
  --json                          JSON on stdout instead of Markdown
  --out <file>                    write the report to a file (its folder must exist; checked before any query)
  --help

Exit codes: 0 report written, 1 a flag or a local file is wrong (credential files included), 2 Prometheus
unreachable or refusing, 3 no GPU matched, 4 Prometheus too slow or its answer too large.`;

class UsageError extends Error {}

/** One rule: what each kind of Prometheus failure exits with. */
const EXIT_OF: Record<PrometheusError['kind'], number> = {
  local: EXIT.usage,
  'bad-query': EXIT.usage,
  unreachable: EXIT.prometheus,
  unauthorized: EXIT.prometheus,
  refused: EXIT.prometheus,
  timeout: EXIT.tooSlow,
  'too-big': EXIT.tooSlow,
};

/** An audit that runs longer than this shows its progress on stderr even when stderr is not a terminal. */
export const PROGRESS_AFTER_MS = 3000;

/**
 * Progress lines for a long audit: one per batch of hosts read (server/fleet/batches.ts), on a terminal from the
 * start, elsewhere (a log, CI) once the audit has run PROGRESS_AFTER_MS.
 */
export function progressLines(err: (s: string) => void, isTTY: boolean, now: () => number): OnBatch {
  const started = now();
  return (what, done, total) => {
    const elapsedMs = now() - started;
    if (!isTTY && elapsedMs < PROGRESS_AFTER_MS) return;
    err(`audit: ${what}: batch ${done} of ${total} of hosts read (${Math.round(elapsedMs / 1000)} s)\n`);
  };
}

/**
 * Runs the CLI; returns the exit code. `out` and `err` are where text goes and `isTTY` whether `err` is a terminal
 * (tests pass their own).
 */
export async function runAudit(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
  now: () => number = Date.now,
  isTTY: boolean = process.stderr.isTTY === true,
): Promise<number> {
  let opts;
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        prometheus: { type: 'string' },
        'prometheus-token-file': { type: 'string' },
        'prometheus-basic-auth-file': { type: 'string' },
        selector: { type: 'string' },
        window: { type: 'string', default: '24h' },
        end: { type: 'string' },
        'price-per-gpu-hour': { type: 'string' },
        'query-timeout': { type: 'string', default: String(DEFAULT_QUERY_TIMEOUT_S) },
        'max-response-mb': { type: 'string', default: String(MAX_RESPONSE_BYTES / 1024 / 1024) },
        'max-series': { type: 'string', default: String(MAX_SERIES) },
        json: { type: 'boolean', default: false },
        'raw-series': { type: 'boolean', default: false },
        'no-gzip': { type: 'boolean', default: false },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      out(`${AUDIT_USAGE}\n`);
      return EXIT.ok;
    }
    if (!values.prometheus)
      throw new UsageError('--prometheus <url> is required (the Prometheus that scrapes dcgm-exporter)');
    const price = values['price-per-gpu-hour'] === undefined ? null : Number(values['price-per-gpu-hour']);
    if (price !== null && !(Number.isFinite(price) && price >= 0 && price < 1000))
      throw new UsageError(
        `--price-per-gpu-hour must be a number of US dollars such as 2.5 (got "${values['price-per-gpu-hour']}")`,
      );
    const endMs = values.end === undefined ? now() : Date.parse(values.end);
    if (!Number.isFinite(endMs))
      throw new UsageError(`--end must be an ISO time such as 2026-12-01T12:00:00Z (got "${values.end}")`);
    try {
      selectorMatchers(values.selector);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    let queryTimeoutS: number;
    try {
      queryTimeoutS = parseQueryTimeout(values['query-timeout'], '--query-timeout');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const maxResponseMb = Number(values['max-response-mb']);
    if (!(Number.isFinite(maxResponseMb) && maxResponseMb >= 1 && maxResponseMb <= 4096))
      throw new UsageError(
        `--max-response-mb must be a number of MB from 1 to 4096 (got "${terminalText(values['max-response-mb'], 40)}")`,
      );
    const maxSeries = Number(values['max-series']);
    if (!(Number.isInteger(maxSeries) && maxSeries >= 1))
      throw new UsageError(
        `--max-series must be a whole number such as 50000 (got "${terminalText(values['max-series'], 40)}")`,
      );
    // Local files first, so a mistake in one costs no query: the credentials, then where the report goes.
    let basicAuth: string | undefined;
    let token: string | undefined;
    try {
      if (values['prometheus-basic-auth-file'])
        basicAuth = readCredentialFile(values['prometheus-basic-auth-file'], 'basic-auth');
      if (values['prometheus-token-file']) token = readCredentialFile(values['prometheus-token-file'], 'token');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (values.out !== undefined) {
      const problem = checkOutPath(values.out);
      if (problem) throw new UsageError(problem);
    }
    let windowS: number;
    try {
      windowS = parseWindow(values.window);
    } catch (e) {
      throw new UsageError(`--window ${(e as Error).message}`);
    }
    opts = {
      ...values,
      price,
      endS: Math.floor(endMs / 1000),
      windowS,
      basicAuth,
      token,
      queryTimeoutS,
      maxResponseMb,
      maxSeries,
    };
  } catch (e) {
    err(`audit: ${terminalText((e as Error).message, 1000)}\n\n${AUDIT_USAGE}\n`);
    return EXIT.usage;
  }
  try {
    const client = createPrometheusClient({
      url: opts.prometheus!,
      bearerToken: opts.token,
      basicAuth: opts.basicAuth,
      timeoutMs: opts.queryTimeoutS * 1000,
      maxResponseBytes: opts.maxResponseMb * 1024 * 1024,
      maxSeries: opts.maxSeries,
      gzip: !opts['no-gzip'],
    });
    const report = await audit(client, {
      windowS: opts.windowS,
      endS: opts.endS,
      selector: opts.selector,
      pricePerGpuHour: opts.price,
      onBatch: progressLines(err, isTTY, now),
      recordingRules: !opts['raw-series'],
    });
    if (report.gpus.length === 0) {
      err(
        `audit: no GPU matched${opts.selector ? ` ${opts.selector}` : ''} in ${report.prometheus} over the window: ` +
          'check the selector, and that Prometheus scrapes dcgm-exporter (DCGM_FI_DEV_GPU_UTIL should have series).\n',
      );
      return EXIT.noMatch;
    }
    const text = opts.json ? `${JSON.stringify(toJson(report), null, 2)}\n` : toMarkdown(report);
    if (opts.out) {
      try {
        writeFileSync(opts.out, text);
      } catch (e) {
        err(`audit: cannot write --out ${terminalText(opts.out)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}\n`);
        return EXIT.usage;
      }
      err(`audit: wrote ${terminalText(opts.out)} (${report.gpus.length} GPUs, ${report.queries} queries)\n`);
    } else out(text);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof PrometheusError) {
      const which =
        e.kind === 'too-big' || e.kind === 'timeout'
          ? ` (selector: ${opts.selector ? terminalText(opts.selector, 200) : 'none, so every GPU'})`
          : '';
      err(`audit: ${e.message}${which}\n`);
      return EXIT_OF[e.kind];
    }
    throw e;
  }
}

if (import.meta.main) process.exitCode = await runAudit(process.argv.slice(2));
