/**
 * The sync server's routes (src/protocol/sync.ts) over `fetch`, each answer checked with its schema. A failure is a
 * `SyncApiError` whose `problem` says in words what happened (src/lib/sync/status-text.ts): offline, unreachable,
 * session expired, quota full, rate limited, or refused with the server's own message.
 */
import {
  ChallengeOptionsSchema,
  PullResultSchema,
  PushResultSchema,
  SignedInSchema,
  SyncErrorSchema,
  SyncStatusSchema,
  type ChallengeOptions,
  type PrfKeyPut,
  type PullResult,
  type PushRequest,
  type PushResult,
  type RecoverySignin,
  type SignedIn,
  type SigninVerify,
  type SignupVerify,
  type SyncStatus,
} from '../../protocol/sync.ts';
import { PROBLEM_TEXT, type SyncProblem } from '../../lib/sync/status-text.ts';
import { z } from 'zod';

/** A request that did not succeed, with what to tell the learner. */
export class SyncApiError extends Error {
  readonly problem: SyncProblem;
  readonly status: number | null;
  /** The server's error code (`SyncError`), when it gave one. */
  readonly code: string | null;
  /** The server's own message, when it gave one. */
  readonly serverMessage: string | null;
  constructor(
    problem: SyncProblem,
    status: number | null,
    message = PROBLEM_TEXT[problem],
    said: { code: string; message: string } | null = null,
  ) {
    super(message);
    this.name = 'SyncApiError';
    this.problem = problem;
    this.status = status;
    this.code = said?.code ?? null;
    this.serverMessage = said?.message ?? null;
  }
}

/** How long one request may take before it counts as "unreachable". */
const TIMEOUT_MS = 30_000;

/** The routes of one server, with an optional session token. `fetchFn` for tests. */
export function syncApi(serverUrl: string, token: string | null = null, fetchFn: typeof fetch = (...a) => fetch(...a)) {
  async function call<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers['authorization'] = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetchFn(`${serverUrl}/v1${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        credentials: 'omit',
      });
    } catch {
      const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
      throw new SyncApiError(offline ? 'offline' : 'unreachable', null);
    }
    let json: unknown = null;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    if (!res.ok) {
      const parsed = SyncErrorSchema.safeParse(json);
      const said = parsed.success ? parsed.data.error : null;
      const fail = (p: SyncProblem, m?: string) => new SyncApiError(p, res.status, m, said);
      if (res.status === 401) throw fail('session-expired');
      if (res.status === 413 && (said?.code ?? 'over_quota') === 'over_quota') throw fail('quota-full');
      if (res.status === 429) throw fail('rate-limited');
      if (res.status >= 500 || res.status === 404) throw fail('unreachable');
      throw fail('refused', said ? `The sync server refused: ${said.message}` : undefined);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new SyncApiError('refused', res.status, 'The sync server answered in a form this page does not know.');
    return parsed.data;
  }
  const ok = z.looseObject({});
  return {
    signupOptions: (): Promise<ChallengeOptions> => call(ChallengeOptionsSchema, 'POST', '/signup/options', {}),
    signupVerify: (b: SignupVerify): Promise<SignedIn> => call(SignedInSchema, 'POST', '/signup/verify', b),
    signinOptions: (): Promise<ChallengeOptions> => call(ChallengeOptionsSchema, 'POST', '/signin/options', {}),
    signinVerify: (b: SigninVerify): Promise<SignedIn> => call(SignedInSchema, 'POST', '/signin/verify', b),
    recoverySignin: (b: RecoverySignin): Promise<SignedIn> => call(SignedInSchema, 'POST', '/recovery/signin', b),
    putPrfKey: (b: PrfKeyPut) => call(ok, 'PUT', '/keys/prf', b),
    push: (b: PushRequest): Promise<PushResult> => call(PushResultSchema, 'POST', '/push', b),
    pull: (after: string, limit: number): Promise<PullResult> =>
      call(PullResultSchema, 'GET', `/pull?${after ? `after=${encodeURIComponent(after)}&` : ''}limit=${limit}`),
    status: (): Promise<SyncStatus> => call(SyncStatusSchema, 'GET', '/status'),
    signout: () => call(ok, 'POST', '/signout', {}),
    deleteAccount: () => call(ok, 'DELETE', '/account'),
  };
}

export type SyncApi = ReturnType<typeof syncApi>;
