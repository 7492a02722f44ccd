/** Command-line flags of the lab server (`npm run lab -- [flags]`), parsed and checked. */
import { parseArgs } from 'node:util';
import { isLoopback, normaliseOrigin } from './security.ts';

/** Parsed flags. */
export interface CliOptions {
  port: number;
  host: string;
  source: string;
  intervalMs: number;
  record: string | null;
  allowOrigins: string[];
  token: string | null;
  maxStreams: number;
  staticDir: string | null;
  help: boolean;
}

/** Default port: fixed so a bookmarked lab URL keeps working; --port 0 picks a free one. */
export const DEFAULT_PORT = 8790;

/** Usage text for --help and for errors. */
export const USAGE = `Usage: npm run lab -- [flags]
  --port N            port to listen on (default ${DEFAULT_PORT}; 0 = pick a free one)
  --host ADDR         address to bind (default 127.0.0.1; anything else needs --token)
  --source SRC        auto (default) | nvml | sim:<scenario>[?knob=value] | replay:<file.ndjson>
  --interval MS       sampling interval in ms (default 500, minimum 100)
  --record FILE       also write every sample to FILE as NDJSON (replay it with --source replay:FILE)
  --allow-origin URL  let this origin call the API from a browser (repeatable), e.g. the deployed site
  --token TOKEN       use this API token instead of a random one (16+ characters)
  --max-streams N     concurrent live streams (default 32)
  --static DIR        also serve this directory (the built site)`;

/** A flag error with the usage appended. */
export class CliError extends Error {
  constructor(message: string) {
    super(`${message}\n\n${USAGE}`);
    this.name = 'CliError';
  }
}

function intFlag(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new CliError(`--${name} needs a whole number, got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new CliError(`--${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
}

/** Parses argv (without node and script). @throws CliError with a message saying what to change. */
export function parseCli(argv: readonly string[]): CliOptions {
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
        'allow-origin': { type: 'string', multiple: true },
        token: { type: 'string' },
        'max-streams': { type: 'string' },
        static: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const host = values.host ?? '127.0.0.1';
  const token = values.token ?? null;
  if (token !== null && !/^[A-Za-z0-9._~-]{16,256}$/.test(token)) {
    throw new CliError('--token must be 16–256 characters of letters, digits, ".", "_", "~" or "-".');
  }
  if (!isLoopback(host) && token === null) {
    throw new CliError(
      `Binding ${host} exposes the lab beyond this machine: pass an explicit --token (e.g. \`openssl rand -hex 16\`) to do that.`,
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
  return {
    port: intFlag(values.port, 'port', DEFAULT_PORT, 0, 65535),
    host,
    source: values.source ?? 'auto',
    intervalMs: intFlag(values.interval, 'interval', 500, 100, 60_000),
    record: values.record ?? null,
    allowOrigins,
    token,
    maxStreams: intFlag(values['max-streams'], 'max-streams', 32, 1, 10_000),
    staticDir: values.static ?? null,
    help: values.help ?? false,
  };
}
