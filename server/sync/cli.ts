/** Command-line flags of the sync server (`npm run sync-server -- [flags]`), parsed and checked. */
import { parseArgs } from 'node:util';
import { DEFAULT_QUOTA_BYTES } from './app.ts';
import { rpIdFor } from './server.ts';

/** Parsed flags. */
export interface SyncCliOptions {
  host: string;
  port: number;
  data: string;
  database: string | null;
  allowOrigins: string[];
  rpId: string;
  quotaBytes: number;
  trustProxy: boolean;
  help: boolean;
}

/** Usage text for --help and for errors. */
export const SYNC_USAGE = `Usage: npm run sync-server -- [flags]
  --host ADDR          address to bind (default 127.0.0.1; put an HTTPS reverse proxy in front)
  --port N             port (default 8791; 0 = pick a free one)
  --data DIR           keep accounts in DIR/sync.sqlite (default ./sync-data)
  --database URL       postgres://user:pass@host/db instead of SQLite (several servers may share it)
  --allow-origin URL   the site's origin, e.g. https://saturate.example (repeatable); every other Origin gets 403
  --rp-id NAME         the passkeys' RP ID: the site's domain (default: the first --allow-origin's host name)
  --quota-bytes SIZE   stored bytes per account, e.g. 64M (default ${DEFAULT_QUOTA_BYTES / 1024 / 1024}M)
  --trust-proxy        take the client's address from X-Forwarded-For (only behind your own reverse proxy)
  --help               this text`;

/** A flag error: the process prints it with the usage and exits 1. */
export class SyncCliError extends Error {
  constructor(message: string) {
    super(`${message}\n\n${SYNC_USAGE}`);
    this.name = 'SyncCliError';
  }
}

/**
 * A size: bytes, or a number with K, M or G (powers of 1024).
 * @example parseSize('64M', '--quota-bytes') // → 67108864
 */
export function parseSize(raw: string, name: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(raw.trim());
  if (!m) throw new SyncCliError(`${name} needs a size such as 65536, 64M or 1G, got "${raw}".`);
  const scale = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(m[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'];
  const bytes = Math.round(Number(m[1]) * scale);
  if (bytes < 64 * 1024) throw new SyncCliError(`${name} must be at least 64K, got "${raw}".`);
  return bytes;
}

/** Parses argv (without node and script). @throws SyncCliError saying what to change. */
export function parseSyncCli(argv: readonly string[]): SyncCliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        data: { type: 'string' },
        database: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'rp-id': { type: 'string' },
        'quota-bytes': { type: 'string' },
        'trust-proxy': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new SyncCliError((e as Error).message);
  }
  const portRaw = values.port ?? '8791';
  if (!/^\d{1,5}$/.test(portRaw) || Number(portRaw) > 65535)
    throw new SyncCliError(`--port needs a whole number from 0 to 65535, got "${portRaw}".`);
  const database = values.database ?? null;
  if (database !== null && !/^postgres(ql)?:\/\//.test(database))
    throw new SyncCliError(`--database needs a postgres://user:password@host:port/db URL, got "${database}".`);
  if (database !== null && values.data !== undefined)
    throw new SyncCliError('Give --data (SQLite) or --database (PostgreSQL), not both.');
  const allowOrigins = (values['allow-origin'] ?? []).flatMap((o) => o.split(',')).filter(Boolean);
  const origins = allowOrigins.map((o) => {
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new SyncCliError(`--allow-origin "${o}" is not a URL; use e.g. https://saturate.example`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new SyncCliError(`--allow-origin "${o}" must be http(s).`);
    return url.origin;
  });
  let rpId: string;
  try {
    rpId = rpIdFor(origins, values['rp-id']);
  } catch (e) {
    throw new SyncCliError((e as Error).message);
  }
  for (const o of origins) {
    const h = new URL(o).hostname;
    if (h !== rpId && !h.endsWith(`.${rpId}`))
      throw new SyncCliError(
        `--allow-origin ${o} is not on --rp-id ${rpId}: passkeys of ${rpId} work only on it and its subdomains.`,
      );
  }
  return {
    host: values.host ?? '127.0.0.1',
    port: Number(portRaw),
    data: values.data ?? './sync-data',
    database,
    allowOrigins: origins,
    rpId,
    quotaBytes:
      values['quota-bytes'] === undefined ? DEFAULT_QUOTA_BYTES : parseSize(values['quota-bytes'], '--quota-bytes'),
    trustProxy: values['trust-proxy'] ?? false,
    help: values.help ?? false,
  };
}
