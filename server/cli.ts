/**
 * Command-line flags of the lab server (`npm start -- [flags]`, or `npm run lab -- [flags]` for the
 * API alone), parsed and checked over DEFAULTS (server/defaults.ts), which the usage text is built from.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULTS, EXIT } from './defaults.ts';
import { DEFAULT_QUERY_TIMEOUT_S, MAX_QUERY_TIMEOUT_S, parseQueryTimeout } from './fleet/query-timeout.ts';
import { isLoopback, normaliseOrigin } from './security.ts';
import { TOKEN_PATTERN } from './token.ts';

/** Parsed flags. */
export interface CliOptions {
  port: number;
  host: string;
  source: string;
  intervalMs: number;
  record: string | null;
  /** Rotate the recording past this many bytes; 0 = never. */
  recordMaxBytes: number;
  allowOrigins: string[];
  /** `--token` (undocumented: it shows in `ps`), else $SATURATE_TOKEN, else null. */
  token: string | null;
  tokenFile: string | null;
  newToken: boolean;
  maxStreams: number;
  maxConnections: number;
  staticDir: string | null;
  /** `--dcgm-names`: the host name /metrics gives dcgm-exporter's series (this machine's by default), else null. */
  dcgmHostname: string | null;
  /** For `--source prometheus:<url>`: how to reach it and which GPUs. */
  prometheus: PrometheusFlags;
  help: boolean;
}

/** `--prometheus-*`: how to reach the Prometheus of `--source prometheus:`, which GPUs, how long a query may take. */
export interface PrometheusFlags {
  tokenFile: string | null;
  basicAuthFile: string | null;
  selector: string | null;
  /** Seconds one query may take (`--prometheus-query-timeout`, default DEFAULT_QUERY_TIMEOUT_S). */
  queryTimeoutS: number;
  /** Ask for gzip-compressed answers (false with `--prometheus-no-gzip`). */
  gzip: boolean;
}

/** The environment variables the CLI reads. */
export interface CliEnv {
  /** The port when no --port is given (as hosting platforms set it). */
  PORT?: string | undefined;
  /** The API token, for scripts (instead of the kept one). */
  SATURATE_TOKEN?: string | undefined;
}

/** Usage text for --help and for errors, built from DEFAULTS and EXIT. */
export const USAGE = `Usage: npm start -- [flags]        (site and lab on one origin)
       npm run lab -- [flags]      (the lab API alone)
  --port N            port to listen on (default ${DEFAULTS.port}, or $PORT; 0 = pick a free one)
  --host ADDR         address to bind (default ${DEFAULTS.host}; anything else needs --token-file or $SATURATE_TOKEN)
  --source SRC        ${DEFAULTS.source} (default) | nvml | sim:<scenario>[?knob=value][&gpus=N] | replay:<file.ndjson>
                      (gpus=N: a machine of N simulated GPUs, 1–16, copies of the scenario's job)
                      | prometheus:<url> (a fleet's GPUs from the Prometheus that scrapes dcgm-exporter)
  --prometheus-selector SEL        with prometheus:, which GPUs, e.g. '{hostname=~"gpu-.*"}'
  --prometheus-token-file FILE     with prometheus:, a bearer token for it
  --prometheus-basic-auth-file FILE  with prometheus:, "user:password" for it
  --prometheus-query-timeout S     with prometheus:, seconds one query may take (default ${DEFAULT_QUERY_TIMEOUT_S}, at most ${MAX_QUERY_TIMEOUT_S})
  --prometheus-no-gzip             with prometheus:, uncompressed answers: about a fifth less of its CPU, 6–11× the bytes
  --interval MS       sampling interval in ms (default ${DEFAULTS.intervalMs}, minimum ${DEFAULTS.minIntervalMs};
                      with prometheus:, how often it is read, default ${DEFAULTS.fleetRefreshMs})
  --record FILE       also write every sample to FILE as NDJSON (replay it with --source replay:FILE)
  --record-max SIZE   past SIZE (e.g. 64M, 1G; 0 = no limit) FILE moves to FILE.1 and starts again
                      (default ${DEFAULTS.recordMaxBytes / 1024 / 1024}M)
  --allow-origin URL  let this origin call the API from a browser (repeatable), e.g. the deployed site
  --token-file FILE   read the API token from FILE (or set $SATURATE_TOKEN); by default the token is
                      kept in ~/.config/saturate/token ($XDG_CONFIG_HOME) and stays the same across restarts
  --new-token         replace the kept token with a fresh one (old lab URLs stop working)
  --max-streams N     concurrent live streams (default ${DEFAULTS.maxStreams})
  --max-connections N open connections before new requests get 503 (default ${DEFAULTS.maxConnections})
  --static DIR        also serve this directory (the built site)
  --dcgm-names        /metrics also exposes dcgm-exporter's and node-exporter's series, so a Prometheus can
                      scrape this server like a GPU node (simulated readings carry simulated="true")
  --dcgm-hostname H   the hostname label of those series (default: this machine's name)
Exit codes: ${EXIT.OK} stopped, ${EXIT.ERROR} unexpected error, ${EXIT.USAGE} bad flag or token, ${EXIT.PORT_IN_USE} port in use, ${EXIT.SOURCE} source cannot start,
            ${EXIT.RECORD} recording cannot start.`;

/** An error that ends the process with `exitCode`. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.name = 'ExitError';
    this.exitCode = exitCode;
  }
}

/** A flag error (exit code EXIT.USAGE) with the usage appended. */
export class CliError extends ExitError {
  constructor(message: string) {
    super(EXIT.USAGE, `${message}\n\n${USAGE}`);
    this.name = 'CliError';
  }
}

/** The exit code for an error that ended a start: its own for an ExitError, else EXIT.ERROR. */
export function exitCodeOf(e: unknown): number {
  return e instanceof ExitError ? e.exitCode : EXIT.ERROR;
}

function intFlag(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new CliError(`${name} needs a whole number, got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new CliError(`${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
}

/** `--prometheus-query-timeout`: seconds, 1 to MAX_QUERY_TIMEOUT_S (the audit's `--query-timeout` rule). */
function queryTimeoutFlag(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_QUERY_TIMEOUT_S;
  try {
    return parseQueryTimeout(raw, '--prometheus-query-timeout');
  } catch (e) {
    throw new CliError(`${(e as Error).message}.`);
  }
}

/** A size flag: bytes, or a number with K, M or G (powers of 1024). */
function sizeFlag(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(raw.trim());
  if (!m) throw new CliError(`${name} needs a size such as 64M or 1G (0 = no limit), got "${raw}".`);
  const scale = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(m[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'];
  const bytes = Math.round(Number(m[1]) * scale);
  if (bytes !== 0 && bytes < 64 * 1024)
    throw new CliError(`${name} must be 0 (no limit) or at least 64K, got "${raw}".`);
  return bytes;
}

/**
 * Parses argv (without node and script) and the environment. A flag wins over its variable.
 * @throws CliError with a message saying what to change.
 */
export function parseCli(argv: readonly string[], env: CliEnv = {}): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        source: { type: 'string' },
        interval: { type: 'string' },
        record: { type: 'string' },
        'record-max': { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'new-token': { type: 'boolean' },
        'max-streams': { type: 'string' },
        'max-connections': { type: 'string' },
        static: { type: 'string' },
        'dcgm-names': { type: 'boolean' },
        'dcgm-hostname': { type: 'string' },
        'prometheus-selector': { type: 'string' },
        'prometheus-token-file': { type: 'string' },
        'prometheus-basic-auth-file': { type: 'string' },
        'prometheus-query-timeout': { type: 'string' },
        'prometheus-no-gzip': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const host = values.host ?? DEFAULTS.host;
  const token = values.token ?? (env.SATURATE_TOKEN || null);
  const tokenFile = values['token-file'] ?? null;
  if (token !== null && !TOKEN_PATTERN.test(token)) {
    const where = values.token === undefined ? '$SATURATE_TOKEN' : '--token';
    throw new CliError(`${where} must be 16–256 characters of letters, digits, ".", "_", "~" or "-".`);
  }
  if (!isLoopback(host) && token === null && tokenFile === null) {
    throw new CliError(
      `Binding ${host} exposes the lab beyond this machine: give it a token of your own with --token-file FILE or SATURATE_TOKEN (e.g. \`openssl rand -hex 16\`).`,
    );
  }
  let allowOrigins: string[];
  try {
    allowOrigins = (values['allow-origin'] ?? [])
      .flatMap((o) => o.split(','))
      .filter(Boolean)
      .map(normaliseOrigin);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const source = values.source ?? DEFAULTS.source;
  const promFlags = [
    'prometheus-selector',
    'prometheus-token-file',
    'prometheus-basic-auth-file',
    'prometheus-query-timeout',
    'prometheus-no-gzip',
  ] as const;
  const strayProm = promFlags.find((f) => values[f] !== undefined);
  if (strayProm && !source.startsWith('prometheus:'))
    throw new CliError(`--${strayProm} goes with --source prometheus:<url> (the Prometheus to read).`);
  if (values['dcgm-hostname'] !== undefined && !values['dcgm-names'])
    throw new CliError('--dcgm-hostname names the host of --dcgm-names series: add --dcgm-names.');
  const envPort = env.PORT === undefined || env.PORT === '' ? undefined : env.PORT;
  return {
    port:
      values.port === undefined && envPort !== undefined
        ? intFlag(envPort, '$PORT', DEFAULTS.port, 0, 65535)
        : intFlag(values.port, '--port', DEFAULTS.port, 0, 65535),
    host,
    source,
    // With a Prometheus source the interval is how often it is read (dcgm-exporter itself collects every 30 s).
    intervalMs:
      values.interval === undefined && source.startsWith('prometheus:')
        ? DEFAULTS.fleetRefreshMs
        : intFlag(values.interval, '--interval', DEFAULTS.intervalMs, DEFAULTS.minIntervalMs, 60_000),
    record: values.record ?? null,
    recordMaxBytes: sizeFlag(values['record-max'], '--record-max', DEFAULTS.recordMaxBytes),
    allowOrigins,
    token,
    tokenFile,
    newToken: values['new-token'] ?? false,
    maxStreams: intFlag(values['max-streams'], '--max-streams', DEFAULTS.maxStreams, 1, 10_000),
    maxConnections: intFlag(values['max-connections'], '--max-connections', DEFAULTS.maxConnections, 1, 100_000),
    staticDir: values.static ?? null,
    dcgmHostname: values['dcgm-names'] ? (values['dcgm-hostname'] ?? hostname()) : null,
    prometheus: {
      tokenFile: values['prometheus-token-file'] ?? null,
      basicAuthFile: values['prometheus-basic-auth-file'] ?? null,
      selector: values['prometheus-selector'] ?? null,
      queryTimeoutS: queryTimeoutFlag(values['prometheus-query-timeout']),
      gzip: !values['prometheus-no-gzip'],
    },
    help: values.help ?? false,
  };
}
