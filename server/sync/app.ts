/**
 * The sync server's HTTP surface (Hono), as `src/protocol/sync.ts` describes it: passkey sign-up and sign-in,
 * recovery sign-in, push and pull of opaque items, status, sign-out and account deletion. Guards in order:
 * security headers, Origin (CORS allow-list), body size, then per route the rate limits and the session.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import {
  PrfKeyPutSchema,
  PushRequestSchema,
  RecoverySigninSchema,
  SigninVerifySchema,
  SignupVerifySchema,
  type PullResult,
  type SignedIn,
  type SyncStatus,
} from '../../src/protocol/sync.ts';
import { clientIp, errorResponse, originGuard, readJson, SyncHttpError, timed, type SyncEnv } from './http.ts';
import { createLimiter, DEFAULT_LIMITS, type Limiter, type RateLimits } from './limits.ts';
import { QuotaError, type SyncStore } from './store.ts';
import {
  checkSignin,
  checkSignup,
  PasskeyError,
  PRF_SALT,
  signinOptions,
  signupOptions,
  type RelyingParty,
} from './webauthn.ts';

/** How long a session lasts without signing in again. */
export const SESSION_TTL_MS = 180 * 24 * 3600_000;
/** Default per-account quota: 64 MiB of stored ciphertext (about 200,000 events of ~300 bytes). */
export const DEFAULT_QUOTA_BYTES = 64 * 1024 * 1024;
/** Largest push body: 5,000 items of ~1 KB fit; a device with more pushes in batches. */
export const MAX_PUSH_BODY = 8 * 1024 * 1024;
/** Largest body of any other route (a WebAuthn answer is a few KB). */
export const MAX_BODY = 64 * 1024;
/** Most items one pull returns (the protocol's `limit ≤ 5000`). */
export const MAX_PULL = 5000;

/** Options of `createSyncApp`. */
export interface SyncAppOptions {
  store: SyncStore;
  /** The passkeys' RP ID (the site's domain) and the origins allowed to call (the site's). */
  rp: RelyingParty;
  quotaBytes?: number;
  limits?: RateLimits;
  /** Read the client's IP from the last X-Forwarded-For hop (behind a reverse proxy). */
  trustProxy?: boolean;
  /** Clock, ms since epoch (tests move it to expire challenges and sessions). */
  now?: () => number;
  log?: (message: string) => void;
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('base64url');

/** Builds the Hono app (no socket); `startSyncServer` listens with it. */
export function createSyncApp(options: SyncAppOptions): Hono<SyncEnv> {
  const { store, rp } = options;
  const now = options.now ?? Date.now;
  const quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;
  const trustProxy = options.trustProxy ?? false;
  const log = options.log ?? ((m: string) => console.error(m));
  const rules = options.limits ?? DEFAULT_LIMITS;
  const limiters = Object.fromEntries(Object.entries(rules).map(([k, rule]) => [k, createLimiter(rule)])) as Record<
    keyof RateLimits,
    Limiter
  >;
  const app = new Hono<SyncEnv>();

  const limit = (name: keyof RateLimits, key: string, what: string) => {
    const wait = limiters[name].take(key, now());
    if (wait > 0) throw new SyncHttpError(429, 'rate_limited', `Too many ${what}: try again in ${wait} s.`, wait);
  };
  const ip = (c: Context<SyncEnv>) => clientIp(c, trustProxy);

  app.use('*', async (c, next) => {
    const started = performance.now();
    c.set('phases', {});
    await next();
    // The time this server spent on the request (handler and database, and any wait for the event loop between
    // them), then its phases, for proxies' logs and the bench.
    const phases = Object.entries(c.get('phases')).map(([k, ms]) => `, ${k};dur=${ms.toFixed(1)}`);
    c.header('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}${phases.join('')}`);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
  });
  app.use('*', originGuard(new Set(rp.origins)));
  app.use('*', compress({ threshold: 1024 }));
  const tooLarge = (max: number) => (c: Context<SyncEnv>) =>
    errorResponse(c, 413, 'too_large', `The request is larger than ${max} bytes: send fewer items per push.`);
  app.use('/v1/push', bodyLimit({ maxSize: MAX_PUSH_BODY, onError: tooLarge(MAX_PUSH_BODY) }));
  app.use('/v1/*', async (c, next) => {
    if (c.req.path === '/v1/push') return next();
    return bodyLimit({ maxSize: MAX_BODY, onError: tooLarge(MAX_BODY) })(c, next);
  });

  app.get('/health', (c) => c.json({ ok: true, storage: store.kind }));

  const signedIn = async (accountId: string, credentialId?: string): Promise<SignedIn> => {
    const token = randomBytes(32).toString('base64url');
    const t = now();
    const expiresAt = t + SESSION_TTL_MS;
    await store.createSession(sha256(token), accountId, t, expiresAt);
    const out: SignedIn = { accountId, session: { token, expiresAt }, keys: await store.keys(accountId) };
    if (credentialId !== undefined) out.credentialId = credentialId;
    return out;
  };
  const challengeFor = async (id: string, purpose: 'signup' | 'signin') => {
    const row = await store.takeChallenge(id);
    if (!row || row.purpose !== purpose || row.expiresAt <= now())
      throw new SyncHttpError(
        409,
        'challenge_used',
        'This sign-in attempt was already used or has expired (2 minutes): start again.',
      );
    return row;
  };

  app.post('/v1/signup/options', async (c) => {
    limit('signupPerIp', ip(c), 'new accounts from this address');
    const { row, options: opts } = await signupOptions(rp, now());
    await store.sweep(now());
    await store.putChallenge(row);
    return c.json({ challengeId: row.id, options: opts as unknown as Record<string, unknown>, prfSalt: PRF_SALT });
  });
  app.post('/v1/signup/verify', async (c) => {
    limit('signupPerIp', ip(c), 'new accounts from this address');
    const body = await readJson(c, SignupVerifySchema);
    const challenge = await challengeFor(body.challengeId, 'signup');
    const credential = await checkSignup(rp, challenge, body.response);
    if (await store.findCredential(credential.id))
      throw new SyncHttpError(409, 'passkey_exists', 'This passkey already belongs to an account: sign in with it.');
    const accountId = challenge.accountId as string;
    await store.createAccount({
      id: accountId,
      recoveryHash: sha256(Buffer.from(body.recoveryAuth, 'base64url')),
      recoveryWrapped: body.recoveryWrapped,
      credential,
      quotaBytes,
      now: now(),
    });
    return c.json(await signedIn(accountId, credential.id));
  });
  app.post('/v1/signin/options', async (c) => {
    limit('signinPerIp', ip(c), 'sign-in attempts from this address');
    const { row, options: opts } = await signinOptions(rp, now());
    await store.sweep(now());
    await store.putChallenge(row);
    return c.json({ challengeId: row.id, options: opts as unknown as Record<string, unknown>, prfSalt: PRF_SALT });
  });
  app.post('/v1/signin/verify', async (c) => {
    limit('signinPerIp', ip(c), 'sign-in attempts from this address');
    const body = await readJson(c, SigninVerifySchema);
    const challenge = await challengeFor(body.challengeId, 'signin');
    const credId = typeof body.response['id'] === 'string' ? body.response['id'] : '';
    const credential = credId ? await store.findCredential(credId) : null;
    if (!credential)
      throw new SyncHttpError(
        401,
        'unknown_passkey',
        'This passkey is not known to this sync server (its account may have been deleted): create an account or use your recovery key.',
      );
    const counter = await checkSignin(rp, challenge, credential, body.response);
    await store.updateCounter(credential.id, counter);
    return c.json(await signedIn(credential.accountId, credential.id));
  });
  app.post('/v1/recovery/signin', async (c) => {
    limit('signinPerIp', ip(c), 'sign-in attempts from this address');
    const body = await readJson(c, RecoverySigninSchema);
    const hash = sha256(Buffer.from(body.recoveryAuth, 'base64url'));
    const found = await store.findRecovery(hash);
    // The lookup is by SHA-256 of a 256-bit secret; the compare is constant-time all the same.
    const stored = Buffer.from(found?.recoveryHash ?? '');
    const ok = found !== null && stored.length === hash.length && timingSafeEqual(stored, Buffer.from(hash));
    if (!found || !ok)
      throw new SyncHttpError(401, 'unknown_recovery_key', 'This recovery key opens no account on this sync server.');
    return c.json(await signedIn(found.accountId));
  });

  // Everything below needs a session.
  app.use('/v1/*', async (c, next): Promise<Response | void> => {
    const m = /^Bearer\s+([A-Za-z0-9_-]{32,86})$/.exec(c.req.header('authorization')?.trim() ?? '');
    const tokenHash = m?.[1] ? sha256(m[1]) : null;
    const accountId = tokenHash ? await timed(c, 'auth', () => store.findSession(tokenHash, now())) : null;
    if (!tokenHash || !accountId) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorResponse(
        c,
        401,
        m ? 'session_expired' : 'no_session',
        m
          ? 'Your session has ended (signed out, expired or deleted): sign in again.'
          : 'Sign in first: this call needs Authorization: Bearer <session token>.',
      );
    }
    c.set('accountId', accountId);
    c.set('tokenHash', tokenHash);
    if (c.req.path !== '/v1/push') limit('otherPerAccount', accountId, 'requests for this account');
    await next();
  });
  app.put('/v1/keys/prf', async (c) => {
    const body = await readJson(c, PrfKeyPutSchema);
    if (!(await store.putPrfKey(c.get('accountId'), body.credentialId, body.wrapped)))
      throw new SyncHttpError(404, 'unknown_passkey', 'That passkey is not one of this account.');
    return c.json({ ok: true });
  });
  app.post('/v1/push', async (c) => {
    const accountId = c.get('accountId');
    await timed(c, 'limit', () => {
      limit('pushPerIp', ip(c), 'pushes from this address');
      limit('pushPerAccount', accountId, 'pushes for this account');
    });
    const body = await timed(c, 'body', () => readJson(c, PushRequestSchema));
    for (const i of body.items)
      if ((i.kind === 'record') !== (i.key !== undefined))
        throw new SyncHttpError(400, 'bad_request', `Bad request: item ${i.id}: a record has a key, an event none.`);
    try {
      return c.json(await timed(c, 'db', () => store.push(accountId, body.items, body.drop ?? [], now())));
    } catch (e) {
      if (e instanceof QuotaError) throw new SyncHttpError(413, 'over_quota', e.message);
      throw e;
    }
  });
  app.get('/v1/pull', async (c) => {
    const after = c.req.query('after') ?? '0';
    const lim = c.req.query('limit') ?? String(MAX_PULL);
    if (!/^\d{1,15}$/.test(after))
      throw new SyncHttpError(400, 'bad_cursor', 'Bad cursor: pass the cursor of the last pull, or 0 to start over.');
    if (!/^\d{1,4}$/.test(lim) || Number(lim) < 1 || Number(lim) > MAX_PULL)
      throw new SyncHttpError(400, 'bad_request', `Bad request: limit must be 1 to ${MAX_PULL}.`);
    const r = await timed(c, 'db', () => store.pull(c.get('accountId'), Number(after), Number(lim)));
    if (Number(after) > r.last)
      throw new SyncHttpError(
        400,
        'bad_cursor',
        'This cursor is ahead of the account (it came from another account or server): pull again from 0.',
      );
    const cursor = String(r.items.at(-1)?.seq ?? Number(after));
    return c.json({ items: r.items, cursor, more: r.more } satisfies PullResult);
  });
  app.get('/v1/status', async (c) => {
    const accountId = c.get('accountId');
    const s = await store.status(accountId, now());
    return c.json({ accountId, ...s } satisfies SyncStatus);
  });
  app.post('/v1/signout', async (c) => {
    await store.deleteSession(c.get('tokenHash'));
    return c.json({ ok: true });
  });
  app.delete('/v1/account', async (c) => {
    await store.deleteAccount(c.get('accountId'));
    return c.json({ ok: true });
  });

  app.notFound((c) => errorResponse(c, 404, 'not_found', `No such route: ${c.req.method} ${c.req.path}.`));
  app.onError((e, c) => {
    if (e instanceof SyncHttpError) {
      if (e.retryAfterS !== null) c.header('Retry-After', String(e.retryAfterS));
      return errorResponse(c, e.status, e.code, e.message);
    }
    if (e instanceof PasskeyError) return errorResponse(c, 400, 'passkey_rejected', e.message);
    log(`[sync] ${c.req.method} ${c.req.path}: ${e instanceof Error ? e.message : String(e)}`);
    return errorResponse(c, 500, 'internal', 'Internal error; see the sync server log.');
  });
  return app;
}
