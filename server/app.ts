/**
 * The lab server's HTTP surface (Hono): the guards (server/guards.ts), health, then the API routes
 * and the built site (server/routes.ts). `createServer()` builds everything without listening
 * (tests listen on port 0); `close()` ends streams, the sampler and the source.
 * No route runs a command: every handler reads the sampler or validates a small JSON body.
 */
import type { Server } from 'node:http';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { DEFAULTS } from './defaults.ts';
import { createEnergyCounter } from './fleet/energy.ts';
import { connectionGuard, hostGuard, jsonError, originGuard, securityHeaders, tokenGuard } from './guards.ts';
import type { RecordingStatus } from './recorder.ts';
import { mountApiRoutes, siteHandler } from './routes.ts';
import { createSampler, type Sampler, type Tick } from './sampler.ts';
import { newToken, normaliseOrigin } from './security.ts';
import type { MetricSource } from './sources/types.ts';
import { createStaticHandler } from './static.ts';
import { createMemorySettler } from './settle.ts';
import { createStreamHub, newBootId, SYSTEM_CLOCK, type HubClock } from './stream.ts';

/** The server's version, reported by /api/health. */
export const VERSION = '0.1.0';

/** Options for `createServer`; only `source` is required. */
export interface ServerOptions {
  source: MetricSource;
  /** Sampling interval in ms (default DEFAULTS.intervalMs). */
  intervalMs?: number;
  /** API token; a random 128-bit one when absent (the CLI passes the kept one, server/token.ts). */
  token?: string;
  /** The host the server binds to; also accepted in the Host header. Default DEFAULTS.host. */
  host?: string;
  /** Origins allowed to call the API cross-origin (e.g. the deployed site). */
  allowOrigins?: readonly string[];
  /** Concurrent SSE streams before 503 (default DEFAULTS.maxStreams). */
  maxStreams?: number;
  /** Largest request body in bytes (default DEFAULTS.maxBodyBytes). */
  maxBodyBytes?: number;
  /** Heartbeat on an idle stream, ms (default DEFAULTS.heartbeatMs). */
  heartbeatMs?: number;
  /** This run's id in SSE event ids (`<bootId>-<seq>`); a random one by default. */
  bootId?: string;
  /** Open connections (sockets) before new requests get 503 (default DEFAULTS.maxConnections). */
  maxConnections?: number;
  /**
   * Run once a burst of connections is over, to give memory back (server/settle.ts); launch passes V8's
   * memory-reducing GC. None by default.
   */
  settleMemory?: () => void;
  /** The stream hub's clock (heartbeats, and the settle check); real time by default. */
  streamClock?: HubClock;
  /** Ticks kept for Last-Event-ID resume (default DEFAULTS.capacity). */
  capacity?: number;
  /** Serve this directory (the built site) for non-API paths. */
  staticDir?: string | null;
  /** Clock for the sampler, ms since epoch. */
  now?: () => number;
  /** Start sampling at once (default true); tests pass false and call `sampler.tick()`. */
  autoStart?: boolean;
  /** Called with each tick (the recorder). */
  onTick?: (tick: Tick) => void;
  /** The recording's state for /api/health (`--record`). */
  recording?: () => RecordingStatus | null;
  /** `--dcgm-names`: /metrics also exposes dcgm-exporter's series for this host name. */
  dcgmHostname?: string | null;
  log?: (message: string) => void;
}

/** A built, not yet listening, lab server. */
export interface LabServer {
  app: Hono<{ Bindings: HttpBindings }>;
  /** Node HTTP server; call `listen()` on it. */
  server: Server;
  sampler: Sampler;
  token: string;
  /** This run's id, the first part of every SSE event id. */
  bootId: string;
  /** Open SSE streams right now. */
  activeStreams(): number;
  /** Open connections (sockets) right now. */
  activeConnections(): number;
  /** Ends every stream, stops sampling, closes the source and the HTTP server. */
  close(): Promise<void>;
}

/** Builds the app, sampler and HTTP server without listening. */
export function createServer(options: ServerOptions): LabServer {
  const token = options.token ?? newToken();
  const allowOrigins = new Set((options.allowOrigins ?? []).map(normaliseOrigin));
  const maxStreams = options.maxStreams ?? DEFAULTS.maxStreams;
  const log = options.log ?? ((m: string) => console.error(m));
  const energy = options.dcgmHostname ? createEnergyCounter() : null;
  const sampler = createSampler({
    source: options.source,
    intervalMs: options.intervalMs ?? DEFAULTS.intervalMs,
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.onTick === undefined && !energy
      ? {}
      : {
          onTick: (t: Tick) => {
            energy?.observe(t.message);
            options.onTick?.(t);
          },
        }),
    onError: (e) => log(`[sampler] ${e instanceof Error ? e.message : String(e)}`),
  });
  // prom-client (~22 MB) and zod (~19 MB) load on first use: most lab servers are never scraped.
  let prometheus: Promise<{ contentType: string; render(): Promise<string> }> | null = null;
  const loadPrometheus = () =>
    (prometheus ??= Promise.all([import('./prometheus.ts'), energy ? import('../src/protocol/dcgm.ts') : null]).then(
      ([m, dcgmNames]) => {
        const own = m.createPrometheus(() => sampler.latest()?.message ?? null, VERSION);
        const host = options.dcgmHostname;
        if (!dcgmNames || !energy || !host) return own;
        // --dcgm-names: dcgm-exporter's and node-exporter's series too, simulated="true" for anything not a live GPU.
        const dcgm = () => {
          const m2 = sampler.latest()?.message;
          if (!m2) return '';
          const extra: Record<string, string> = m2.simulated ? { simulated: 'true' } : {};
          const gpus = dcgmNames.dcgmExposition(m2.gpus, host, energy.mj, extra);
          return m2.host ? gpus + dcgmNames.nodeExposition(m2.host, host, energy.idleSeconds, extra) : gpus;
        };
        return { contentType: own.contentType, render: async () => (await own.render()) + dcgm() };
      },
    ));
  const bootId = options.bootId ?? newBootId();
  const hub = createStreamHub({
    sampler,
    bootId,
    heartbeatMs: options.heartbeatMs ?? DEFAULTS.heartbeatMs,
    ...(options.streamClock ? { clock: options.streamClock } : {}),
  });
  const app = new Hono<{ Bindings: HttpBindings }>();

  // Guards, in order: Host (DNS rebinding), Origin (CORS), then the token on every API route but health.
  // The security headers go on every answer, the guards' refusals included.
  const maxConnections = options.maxConnections ?? DEFAULTS.maxConnections;
  let openConnections = 0;
  app.use('*', securityHeaders());
  app.use(
    '*',
    connectionGuard(() => openConnections, maxConnections),
  );
  app.use('*', hostGuard(options.host ?? DEFAULTS.host));
  app.use('*', originGuard(allowOrigins));
  const requireToken = tokenGuard(() => token);

  app.get('/api/health', (c) =>
    c.json({
      ok: true,
      version: VERSION,
      source: options.source.id,
      simulated: options.source.simulated,
      reason: options.source.reason,
      recording: options.recording?.() ?? null,
    }),
  );
  app.use('/api/*', requireToken);
  app.use('/metrics', requireToken);

  mountApiRoutes(app, {
    source: options.source,
    sampler,
    hub,
    bootId,
    allowOrigins,
    maxStreams,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    loadPrometheus,
  });
  app.all('*', siteHandler(options.staticDir ? createStaticHandler(options.staticDir) : null));

  app.onError((e, c) => {
    log(`[http] ${c.req.method} ${c.req.path}: ${e instanceof Error ? e.message : String(e)}`);
    return jsonError(c, 500, 'Internal error; see the lab server log.');
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const settler = options.settleMemory
    ? createMemorySettler({ reduce: options.settleMemory, clock: options.streamClock ?? SYSTEM_CLOCK })
    : null;
  server.on('connection', (socket) => {
    openConnections++;
    settler?.opened();
    socket.once('close', () => {
      openConnections--;
      settler?.closed();
    });
  });
  // Past the cap requests get a 503 that says why; far past it Node drops new sockets unanswered.
  server.maxConnections = maxConnections * 2;
  // Bound slow clients: a request must arrive whole within 10 s (streams are unaffected).
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;

  if (options.autoStart !== false) {
    try {
      sampler.tick();
    } catch (e) {
      log(`[sampler] first tick failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    sampler.start();
  }

  return {
    app,
    server,
    sampler,
    token,
    bootId,
    activeStreams: () => hub.size,
    activeConnections: () => openConnections,
    async close() {
      settler?.close();
      hub.close();
      sampler.close();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    },
  };
}
