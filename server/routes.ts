/**
 * The lab server's routes behind the guards: `mountApiRoutes` (devices, snapshot, the SSE stream, the
 * throughput feed, the simulation's knobs, /metrics, and a 404 that lists them) and `siteHandler`
 * (the built site, for `npm start`). `createServer` (server/app.ts) mounts the guards and
 * `/api/health` first.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Hono, Handler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { corsHeadersFor, jsonError, SECURITY_HEADERS } from './guards.ts';
import type { Sampler } from './sampler.ts';
import { mountSimRoutes, readJsonBody } from './sim-routes.ts';
import type { MetricSource } from './sources/types.ts';
import type { StaticHandler } from './static.ts';
import { resumeAfter, type StreamHub } from './stream.ts';

/** What the API routes read. */
export interface ApiDeps {
  source: MetricSource;
  sampler: Sampler;
  hub: StreamHub;
  bootId: string;
  allowOrigins: ReadonlySet<string>;
  maxStreams: number;
  maxBodyBytes: number;
  /** prom-client and zod load on the first scrape. */
  loadPrometheus: () => Promise<{ contentType: string; render(): Promise<string> }>;
}

/** A source that can run the fleet audit (server/fleet/source.ts). */
interface FleetCapable {
  fleet(windowS: number, pricePerGpuHour: number | null): Promise<import('./fleet/audit.ts').AuditReport>;
}

/** Mounts every /api route but health, and /metrics; the token guard must already cover them. */
export function mountApiRoutes(app: Hono<{ Bindings: HttpBindings }>, deps: ApiDeps): void {
  const { source, sampler, hub, bootId, allowOrigins, maxStreams, maxBodyBytes, loadPrometheus } = deps;
  app.get('/api/devices', (c) => {
    const driverVersion = 'driverVersion' in source ? (source as { driverVersion: string | null }).driverVersion : null;
    return c.json({
      source: source.id,
      simulated: source.simulated,
      reason: source.reason,
      driverVersion,
      devices: source.devices(),
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
    maxSize: maxBodyBytes,
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

  mountSimRoutes(app, source, limit);

  // The fleet audit, when the source is a Prometheus (--source prometheus:<url>). Only the window comes from the
  // browser: the Prometheus URL and its credentials stay on the server.
  app.get('/api/fleet', async (c) => {
    if (!('fleet' in source))
      return jsonError(c, 404, 'No fleet here: start the lab server with --source prometheus:<url> (your Prometheus).');
    const { parseWindow, toJson } = await import('./fleet/report.ts');
    let windowS: number;
    try {
      windowS = parseWindow(c.req.query('window') ?? '24h');
    } catch (e) {
      return jsonError(c, 422, `window ${(e as Error).message}`);
    }
    try {
      const report = await (source as FleetCapable).fleet(windowS, null);
      return c.json(toJson(report));
    } catch (e) {
      return jsonError(c, 502, `The fleet could not be read: ${(e as Error).message}`);
    }
  });

  app.get('/metrics', async (c) => {
    const p = await loadPrometheus();
    return c.body(await p.render(), 200, { 'Content-Type': p.contentType });
  });

  app.all('/api/*', (c) =>
    jsonError(
      c,
      404,
      `No API route ${c.req.method} ${c.req.path}. Routes: /api/health, /api/devices, /api/snapshot, /api/stream, POST /api/throughput, GET/POST /api/sim/knobs, /api/fleet, /metrics.`,
    ),
  );
}

/** The built site for every other path (GET and HEAD), or a 404 that says how to get one. */
export function siteHandler(serveStatic: StaticHandler | null): Handler<{ Bindings: HttpBindings }> {
  return async (c) => {
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
  };
}
