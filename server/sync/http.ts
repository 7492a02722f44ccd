/**
 * The sync server's HTTP plumbing: errors in the protocol's shape (`SyncError`), the Origin guard with CORS,
 * the client's IP for rate limits, and reading a JSON body against a zod schema.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';

/** Hono's environment for the sync server: Node bindings, and the signed-in account once the session passed. */
/** `phases`: ms per phase of this request (session lookup, body, database), sent in Server-Timing. */
export type SyncEnv = {
  Bindings: HttpBindings;
  Variables: { accountId: string; tokenHash: string; phases: Record<string, number> };
};

/**
 * Runs `fn`, adding its ms to the request's phase `name` (reported in Server-Timing after `app`).
 * @example const id = await timed(c, 'auth', () => store.findSession(hash, now));
 */
export async function timed<T>(
  c: { get(k: 'phases'): Record<string, number> },
  name: string,
  fn: () => T | Promise<T>,
) {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    const phases = c.get('phases');
    phases[name] = (phases[name] ?? 0) + performance.now() - t0;
  }
}

/** The statuses the protocol names. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500;

/** An error a route throws to answer `status` with `{ error: { code, message } }`. */
export class SyncHttpError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly retryAfterS: number | null;
  constructor(status: ErrorStatus, code: string, message: string, retryAfterS: number | null = null) {
    super(message);
    this.name = 'SyncHttpError';
    this.status = status;
    this.code = code;
    this.retryAfterS = retryAfterS;
  }
}

/** Answers an error in the protocol's shape. */
export function errorResponse(c: Context, status: ErrorStatus, code: string, message: string): Response {
  c.header('Cache-Control', 'no-store');
  return c.json({ error: { code, message } }, status);
}

/**
 * Answers CORS preflights for the allowed origins and refuses (403) any request that carries another Origin,
 * preflight or not. Requests without Origin (scripts, curl, other servers) pass: they carry no cookie either,
 * only the bearer token they were given.
 */
export function originGuard(allowOrigins: ReadonlySet<string>): MiddlewareHandler<SyncEnv> {
  return async (c, next): Promise<Response | void> => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowOrigins.has(origin)) {
      return errorResponse(
        c,
        403,
        'origin_not_allowed',
        `Origin ${origin} is not allowed: start the sync server with --allow-origin ${origin} to let that site use it.`,
      );
    }
    if (origin !== undefined) {
      c.header('Access-Control-Allow-Origin', origin);
      c.header('Vary', 'Origin');
    }
    if (c.req.method === 'OPTIONS') {
      if (origin === undefined) return errorResponse(c, 403, 'origin_not_allowed', 'A preflight needs an Origin.');
      c.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
      c.header('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      c.header('Access-Control-Max-Age', '600');
      return c.body(null, 204);
    }
    c.header('Access-Control-Expose-Headers', 'Retry-After');
    await next();
  };
}

/**
 * The client's address: the socket's peer, or with `trustProxy` the last `X-Forwarded-For` hop (the one the
 * reverse proxy in front of this server added; earlier hops are whatever the client claimed).
 */
export function clientIp(c: Context<SyncEnv>, trustProxy: boolean): string {
  if (trustProxy) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const last = hops.at(-1);
    if (last) return last;
  }
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** Reads the body as JSON and checks it; a 400 that names the first problem otherwise. */
export async function readJson<S extends z.ZodType>(c: Context<SyncEnv>, schema: S): Promise<z.output<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new SyncHttpError(415, 'bad_content_type', 'Send the body as JSON (Content-Type: application/json).');
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new SyncHttpError(400, 'bad_json', 'The body is not valid JSON.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    throw new SyncHttpError(400, 'bad_request', `Bad request: ${where}: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}
