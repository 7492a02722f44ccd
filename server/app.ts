/**
 * The lab server's HTTP surface (Hono): health, devices, snapshot, the SSE stream, Prometheus
 * metrics, the throughput feed and, optionally, the built site. `createServer()` builds everything
 * without listening (tests listen on port 0); `close()` ends streams, the sampler and the source.
 * No route runs a command: every handler reads the sampler or validates a small JSON body.
 */
import type { OutgoingHttpHeaders, Server } from 'node:http';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createSampler, type Sampler, type Tick } from './sampler.ts';
import type { RecordingStatus } from './recorder.ts';
import { mountSimRoutes, readJsonBody } from './sim-routes.ts';
import { DEFAULTS } from './defaults.ts';
import {
  connectionGuard,
  corsHeadersFor,
  hostGuard,
  jsonError,
  originGuard,
  SECURITY_HEADERS,
  tokenGuard,
} from './guards.ts';
import { newToken, normaliseOrigin } from './security.ts';
import type { MetricSource } from './sources/types.ts';
import { createStaticHandler } from './static.ts';
import { createStreamHub, newBootId, resumeAfter, type HubClock } from './stream.ts';

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
  /** The stream hub's clock (heartbeats); real time by default. */
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
  const sampler = createSampler({
    source: options.source,
    intervalMs: options.intervalMs ?? DEFAULTS.intervalMs,
    ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.onTick === undefined ? {} : { onTick: options.onTick }),
    onError: (e) => log(`[sampler] ${e instanceof Error ? e.message : String(e)}`),
  });
  // prom-client (~22 MB) and zod (~19 MB) load on first use: most lab servers are never scraped.
  let prometheus: Promise<{ contentType: string; render(): Promise<string> }> | null = null;
  const loadPrometheus = () =>
    (prometheus ??= import('./prometheus.ts').then((m) =>
      m.createPrometheus(() => sampler.latest()?.message ?? null, VERSION),
    ));
  const serveStatic = options.staticDir ? createStaticHandler(options.staticDir) : null;
  const bootId = options.bootId ?? newBootId();
  const hub = createStreamHub({
    sampler,
    bootId,
    heartbeatMs: options.heartbeatMs ?? DEFAULTS.heartbeatMs,
    ...(options.streamClock ? { clock: options.streamClock } : {}),
  });
  const app = new Hono<{ Bindings: HttpBindings }>();

  // Guards, in order: Host (DNS rebinding), Origin (CORS), then the token on every API route but health.
  const maxConnections = options.maxConnections ?? DEFAULTS.maxConnections;
  let openConnections = 0;
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

  app.get('/api/devices', (c) => {
    const driverVersion =
      'driverVersion' in options.source ? (options.source as { driverVersion: string | null }).driverVersion : null;
    return c.json({
      source: options.source.id,
      simulated: options.source.simulated,
      reason: options.source.reason,
      driverVersion,
      devices: options.source.devices(),
    });
  });

  app.get('/api/snapshot', (c) => {
    const latest = sampler.latest();
    if (!latest) return jsonError(c, 503, 'No sample yet: the first arrives within one interval.');
    return c.body(latest.json, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  app.get('/api/stream', (c) => {
    if (hub.size >= maxStreams) {
      c.header('Retry-After', '5');
      return jsonError(
        c,
        503,
        `Too many live streams (limit ${maxStreams}): close another lab tab, or start the server with a higher --max-streams.`,
      );
    }
    const raw = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    const lastSeq = resumeAfter(raw, bootId, sampler.latest()?.message.seq ?? 0);
    const headers: OutgoingHttpHeaders = {
      ...SECURITY_HEADERS,
      ...corsHeadersFor(allowOrigins, c.req.header('origin')),
    };
    hub.attach(c.env.incoming, c.env.outgoing, lastSeq, headers);
    // The hub writes the response itself; this tells the adaptor not to (a fresh object: middleware may add headers to it).
    return new Response(null, { headers: RESPONSE_ALREADY_SENT.headers });
  });

  const limit = bodyLimit({
    maxSize: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    onError: (c) => {
      c.header('Connection', 'close'); // the rest of the body is never read: do not reuse this socket
      return jsonError(c, 413, 'Body too large: send one small JSON object per request.');
    },
  });

  app.post('/api/throughput', limit, async (c) => {
    const read = await readJsonBody(c);
    if (read instanceof Response) return read;
    const { ThroughputReportSchema } = await import('../src/protocol/metrics.ts');
    const parsed = ThroughputReportSchema.safeParse(read.body);
    if (!parsed.success)
      return jsonError(
        c,
        422,
        parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
      );
    return c.json({ ok: true, throughput: sampler.reportThroughput(parsed.data) });
  });

  mountSimRoutes(app, options.source, limit);

  app.get('/metrics', async (c) => {
    const p = await loadPrometheus();
    return c.body(await p.render(), 200, { 'Content-Type': p.contentType });
  });

  app.all('/api/*', (c) =>
    jsonError(
      c,
      404,
      `No API route ${c.req.method} ${c.req.path}. Routes: /api/health, /api/devices, /api/snapshot, /api/stream, POST /api/throughput, GET/POST /api/sim/knobs, /metrics.`,
    ),
  );

  app.all('*', async (c) => {
    if (!serveStatic)
      return jsonError(
        c,
        404,
        'Not found. This lab server has no site to serve; run `npm start` to serve the built site.',
      );
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
      return jsonError(c, 405, 'Only GET and HEAD are served here.');
    const url = new URL(c.req.url);
    const res = await serveStatic(c.req.method, url.pathname, c.req.header('accept-encoding'));
    if (!res) return jsonError(c, 400, 'Bad path.');
    // A page opened with the token in its URL must not be kept by a cache (or the back/forward list's copy).
    if (url.searchParams.has('token')) res.headers.set('Cache-Control', 'no-store');
    return res;
  });

  app.onError((e, c) => {
    log(`[http] ${c.req.method} ${c.req.path}: ${e instanceof Error ? e.message : String(e)}`);
    return jsonError(c, 500, 'Internal error; see the lab server log.');
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  server.on('connection', (socket) => {
    openConnections++;
    socket.once('close', () => openConnections--);
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
      hub.close();
      sampler.close();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    },
  };
}
