/**
 * Starting the sync server from code: `startSyncServer({ port, data, allowOrigin, rpId })` → `{ url, stop() }`,
 * for the CLI (`main.ts`) and for tests (Playwright's or vitest's) alike.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createSyncApp, DEFAULT_QUOTA_BYTES } from './app.ts';
import type { RateLimits } from './limits.ts';
import type { SyncStore } from './store.ts';

/** Options of `startSyncServer`; all optional. */
export interface StartOptions {
  /** Port (default 8791; 0 = a free one). */
  port?: number;
  host?: string;
  /** Folder of the SQLite file (default ./sync-data); ignored with `database`. */
  data?: string;
  /** `postgres://…`: PostgreSQL instead of SQLite. */
  database?: string;
  /** The site's origin(s), e.g. http://localhost:4321. */
  allowOrigin?: string | readonly string[];
  /** The passkeys' RP ID: the site's domain (default: the first origin's host name). */
  rpId?: string;
  quotaBytes?: number;
  trustProxy?: boolean;
  limits?: RateLimits;
  now?: () => number;
  log?: (message: string) => void;
  /** A store already open (tests); `stop()` closes it. */
  store?: SyncStore;
}

/** A listening sync server. */
export interface RunningSyncServer {
  /** e.g. http://127.0.0.1:8791 */
  url: string;
  port: number;
  store: SyncStore;
  server: Server;
  /** Closes connections, the server and the store. */
  stop(): Promise<void>;
}

/** Opens the store a `--data` or `--database` names. */
export async function openStore(options: { data?: string; database?: string }): Promise<SyncStore> {
  if (options.database) {
    const { openPostgresStore } = await import('./postgres.ts');
    return openPostgresStore(options.database);
  }
  const { openSqliteStore } = await import('./sqlite.ts');
  return openSqliteStore(options.data ?? './sync-data');
}

/**
 * The RP ID for a list of origins: `rpId` when given, else the first origin's host name, else `localhost`.
 * @throws when it is an IP address (WebAuthn refuses those).
 * @example rpIdFor(['https://learn.example']) // → 'learn.example'
 */
export function rpIdFor(origins: readonly string[], rpId?: string): string {
  const id = rpId ?? (origins[0] ? new URL(origins[0]).hostname : 'localhost');
  if (/^[\d.]+$/.test(id) || id.includes(':') || id.startsWith('['))
    throw new Error(
      `The passkey RP ID "${id}" is an IP address, which WebAuthn refuses: serve the site on a name (localhost, or its domain) and pass --rp-id NAME.`,
    );
  return id;
}

/**
 * Opens the store, builds the app and listens.
 * @example const s = await startSyncServer({ port: 0, data: dir, allowOrigin: 'http://localhost:4321' }); await s.stop();
 */
export async function startSyncServer(options: StartOptions = {}): Promise<RunningSyncServer> {
  const origins = (typeof options.allowOrigin === 'string' ? [options.allowOrigin] : (options.allowOrigin ?? [])).map(
    (o) => new URL(o).origin,
  );
  const rpId = rpIdFor(origins, options.rpId);
  const store = options.store ?? (await openStore(options));
  const app = createSyncApp({
    store,
    rp: { rpId, origins },
    quotaBytes: options.quotaBytes ?? DEFAULT_QUOTA_BYTES,
    trustProxy: options.trustProxy ?? false,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8791, host, () => resolve());
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    store,
    server,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
