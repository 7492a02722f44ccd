/**
 * The lab server's guards as Hono middlewares, in the order `createServer` mounts them:
 * `connectionGuard` (a cap on open connections), `hostGuard` (DNS-rebinding defence and the security headers), `originGuard` (CORS allow-list and
 * Private Network Access preflights) and `tokenGuard` (the API token). Each is small and tested on
 * its own with `app.request()` (test/server/guards.test.ts); the rules they apply live in security.ts.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { hostChecker, tokenFrom, tokenMatches } from './security.ts';

/**
 * Headers on every response, refusals included. No page of another origin may frame the lab (its buttons
 * change the simulation): `X-Frame-Options` for old browsers, CSP `frame-ancestors` for the rest. The CSP
 * holds only that directive, so the site's own scripts, styles and workers load as before.
 */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer', // the token travels in URLs: never leak it in Referer
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
} as const;

/** Sets SECURITY_HEADERS on every answer, whatever later middleware or route answers it (mounted first). */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next): Promise<void> => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
  };
}

/** Every error the server answers: `{ error }` as JSON with a status. */
export const jsonError = (
  c: Context,
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 500 | 502 | 503,
  error: string,
): Response => c.json({ error }, status);

/** CORS headers for `origin` when it is allowed, else none. */
export function corsHeadersFor(allowOrigins: ReadonlySet<string>, origin: string | undefined): Record<string, string> {
  return origin !== undefined && allowOrigins.has(origin)
    ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
    : {};
}

/**
 * Answers 503 with Retry-After while more than `max` connections are open (`open()` counts them,
 * this request's own included), and closes that connection: one client opening sockets in a loop
 * cannot hold the server's memory. Mounted before every other guard.
 */
export function connectionGuard(open: () => number, max: number): MiddlewareHandler {
  return async (c, next): Promise<Response | void> => {
    if (open() > max) {
      c.header('Retry-After', '5');
      c.header('Connection', 'close');
      return jsonError(
        c,
        503,
        `Too many open connections (limit ${max}): close other lab tabs or clients, or start the server with a higher --max-connections.`,
      );
    }
    await next();
  };
}

/**
 * Refuses (403) a request whose Host header does not name this machine (`host` is the bind
 * address). SECURITY_HEADERS come from `securityHeaders`, mounted before it.
 */
export function hostGuard(host: string): MiddlewareHandler {
  const hostOk = hostChecker(host);
  return async (c, next): Promise<Response | void> => {
    if (!hostOk(c.req.header('host')))
      return jsonError(
        c,
        403,
        'Host not allowed: use http://127.0.0.1:<port>/ or localhost (or the configured --host).',
      );
    await next();
  };
}

/**
 * CORS for the allowed origins only (normalised "scheme://host[:port]"), including Private Network
 * Access preflights. A browser call to the API or /metrics from a page of another origin that is not
 * allowed is refused outright (defence in depth: it would also need the token); same-origin pages,
 * `Origin: null` and non-browser clients pass.
 */
export function originGuard(allowOrigins: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next): Promise<Response | void> => {
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && allowOrigins.has(origin);
    if (c.req.method === 'OPTIONS') {
      if (!allowed) return c.body(null, 403);
      c.header('Access-Control-Allow-Origin', origin);
      c.header('Vary', 'Origin');
      c.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      c.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Last-Event-ID');
      c.header('Access-Control-Max-Age', '600');
      if (c.req.header('access-control-request-private-network') === 'true')
        c.header('Access-Control-Allow-Private-Network', 'true');
      return c.body(null, 204);
    }
    const sameOrigin = origin !== undefined && origin === `${new URL(c.req.url).protocol}//${c.req.header('host')}`;
    const guarded = c.req.path.startsWith('/api/') || c.req.path === '/metrics';
    if (origin !== undefined && origin !== 'null' && !allowed && !sameOrigin && guarded) {
      return jsonError(
        c,
        403,
        `Origin ${origin} is not allowed: start the lab server with --allow-origin ${origin} to let that site use it.`,
      );
    }
    await next();
    for (const [name, value] of Object.entries(corsHeadersFor(allowOrigins, origin))) c.header(name, value);
  };
}

/** The 401 answer's text when no token came. */
export const TOKEN_MISSING = 'Missing token: open the URL the lab server printed (it ends in ?token=…).';
/** The 401 answer's text for a token that is not the server's (most often one from before a --new-token). */
export const TOKEN_CHANGED =
  "The lab server's token changed (it was rotated with --new-token, or another server answers on this port): open the URL the lab server printed (it ends in ?token=…).";

/**
 * Requires the token (`Authorization: Bearer …` or `?token=`) and marks what passes as not
 * cacheable. `token` is read per request.
 */
export function tokenGuard(token: () => string): MiddlewareHandler {
  return async (c, next): Promise<Response | void> => {
    const given = tokenFrom(c.req.header('authorization'), c.req.query('token'));
    if (!tokenMatches(given, token())) {
      c.header('WWW-Authenticate', 'Bearer');
      return jsonError(c, 401, given ? TOKEN_CHANGED : TOKEN_MISSING);
    }
    await next();
    c.header('Cache-Control', 'no-store');
  };
}
