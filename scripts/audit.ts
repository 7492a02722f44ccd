/**
 * `npm run audit -- --prometheus <url> [--window 24h] [--selector '{…}'] [--price-per-gpu-hour N]
 * [--json | --out report.md]`: where a fleet's GPUs are wasted and what it costs, read from the Prometheus
 * that scrapes dcgm-exporter. Exit codes: 0 report written, 1 bad flags, 2 Prometheus unreachable or
 * refusing, 3 no GPU matched the selector.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { audit } from '../server/fleet/audit.ts';
import { createPrometheusClient, PrometheusError, readCredentialFile } from '../server/fleet/prometheus-api.ts';
import { selectorMatchers } from '../server/fleet/collect.ts';
import { parseWindow, toJson, toMarkdown } from '../server/fleet/report.ts';

export const EXIT = { ok: 0, usage: 1, prometheus: 2, noMatch: 3 } as const;

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
  --json                          JSON on stdout instead of Markdown
  --out <file>                    write the report to a file
  --help

Exit codes: 0 report written, 1 bad flags, 2 Prometheus unreachable or refusing, 3 no GPU matched.`;

class UsageError extends Error {}

/** Runs the CLI; returns the exit code. `out` and `err` are where text goes (tests pass their own). */
export async function runAudit(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
  now: () => number = Date.now,
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
        json: { type: 'boolean', default: false },
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
    let basicAuth: string | undefined;
    if (values['prometheus-basic-auth-file']) {
      try {
        basicAuth = readCredentialFile(values['prometheus-basic-auth-file'], 'basic-auth');
      } catch (e) {
        throw new UsageError(`--prometheus-basic-auth-file: ${(e as Error).message}`);
      }
    }
    let windowS: number;
    try {
      windowS = parseWindow(values.window);
    } catch (e) {
      throw new UsageError(`--window ${(e as Error).message}`);
    }
    opts = { ...values, price, endS: Math.floor(endMs / 1000), windowS, basicAuth };
  } catch (e) {
    err(`audit: ${(e as Error).message}\n\n${AUDIT_USAGE}\n`);
    return EXIT.usage;
  }
  try {
    const client = createPrometheusClient({
      url: opts.prometheus!,
      tokenFile: opts['prometheus-token-file'],
      basicAuth: opts.basicAuth,
    });
    const report = await audit(client, {
      windowS: opts.windowS,
      endS: opts.endS,
      selector: opts.selector,
      pricePerGpuHour: opts.price,
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
      writeFileSync(opts.out, text);
      err(`audit: wrote ${opts.out} (${report.gpus.length} GPUs, ${report.queries} queries)\n`);
    } else out(text);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof PrometheusError) {
      err(`audit: ${e.message}\n`);
      return e.kind === 'bad-query' ? EXIT.usage : EXIT.prometheus;
    }
    throw e;
  }
}

if (import.meta.main) process.exitCode = await runAudit(process.argv.slice(2));
