/**
 * A small client for Prometheus's HTTP query API (`/api/v1/query`, `/api/v1/query_range`), as the fleet
 * reader and the audit CLI use it. Credentials (a bearer token read from a file, or basic auth) stay in this
 * module: errors and logs name the Prometheus URL without them.
 * See https://prometheus.io/docs/prometheus/latest/querying/api/
 */
import { readFileSync } from 'node:fs';

export interface PrometheusOptions {
  /** Base URL, e.g. `http://prometheus:9090` (a path prefix such as `/prom` is kept). */
  url: string;
  /** A file holding a bearer token (read once; trailing whitespace removed). */
  tokenFile?: string | undefined;
  /** Basic auth as `user:password`. */
  basicAuth?: string | undefined;
  /** A file holding `user:password` (read once; wins over `basicAuth`). */
  basicAuthFile?: string | undefined;
  /** Per request, ms. */
  timeoutMs?: number;
  /** The fetch to use (tests pass none: the real one). */
  fetchImpl?: typeof fetch;
}

/** Why a query failed, in words a platform engineer can act on. */
export class PrometheusError extends Error {
  override name = 'PrometheusError';
  readonly kind: 'unreachable' | 'unauthorized' | 'refused' | 'bad-query' | 'timeout';
  constructor(kind: PrometheusError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

/** One series of an instant vector: its labels and value. */
export interface InstantSeries {
  labels: Record<string, string>;
  value: number;
}

/** One series of a range query: its labels and [unix seconds, value] points. */
export interface RangeSeries {
  labels: Record<string, string>;
  points: [number, number][];
}

export interface PrometheusClient {
  /** Evaluates `expr` at `timeS` (unix seconds). */
  query(expr: string, timeS: number): Promise<InstantSeries[]>;
  /** Evaluates `expr` from `startS` to `endS` every `stepS` seconds. */
  queryRange(expr: string, startS: number, endS: number, stepS: number): Promise<RangeSeries[]>;
  /** How many HTTP requests this client has made (the bench reports queries per refresh). */
  readonly requests: number;
  /** The URL without credentials, for messages. */
  readonly where: string;
}

interface ApiBody {
  status: 'success' | 'error';
  errorType?: string;
  error?: string;
  data?: {
    resultType: string;
    result: { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[];
  };
}

/**
 * A credential kept in a file (a bearer token, or `user:password`), trimmed. Throws a PrometheusError naming the
 * file, never its content.
 */
export function readCredentialFile(path: string, what: 'token' | 'basic-auth'): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw new PrometheusError('refused', `cannot read the Prometheus ${what} file ${path}: ${(e as Error).message}`);
  }
}

/** A client for the Prometheus at `opts.url`. Throws a `PrometheusError` for a URL it cannot use. */
export function createPrometheusClient(opts: PrometheusOptions): PrometheusClient {
  let base: URL;
  try {
    base = new URL(opts.url);
  } catch {
    throw new PrometheusError(
      'bad-query',
      `"${opts.url}" is not a URL: give Prometheus's address, e.g. http://127.0.0.1:9090`,
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new PrometheusError('bad-query', `Prometheus must be reached over http or https, not ${base.protocol}`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (base.username || base.password) {
    headers['authorization'] =
      `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  const basicAuth = opts.basicAuthFile ? readCredentialFile(opts.basicAuthFile, 'basic-auth') : opts.basicAuth;
  if (basicAuth) headers['authorization'] = `Basic ${Buffer.from(basicAuth).toString('base64')}`;
  if (opts.tokenFile) {
    const token = readCredentialFile(opts.tokenFile, 'token');
    if (!token) throw new PrometheusError('refused', `the Prometheus token file ${opts.tokenFile} is empty`);
    headers['authorization'] = `Bearer ${token}`;
  }
  const where = base.origin + base.pathname.replace(/\/$/, '');
  const doFetch = opts.fetchImpl ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let requests = 0;

  async function call(path: string, params: Record<string, string>): Promise<ApiBody['data']> {
    requests++;
    const url = `${where}${path}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST', // long selectors fit in a body, not a URL
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (e) {
      const err = e as Error;
      if (err.name === 'TimeoutError' || err.name === 'AbortError')
        throw new PrometheusError('timeout', `Prometheus at ${where} did not answer within ${timeoutMs / 1000} s`);
      throw new PrometheusError('unreachable', `cannot reach Prometheus at ${where}: ${causeOf(err)}`);
    }
    if (res.status === 401 || res.status === 403)
      throw new PrometheusError(
        'unauthorized',
        `Prometheus at ${where} refused the request (HTTP ${res.status}): check --prometheus-token-file or the user and password`,
      );
    let body: ApiBody;
    try {
      body = (await res.json()) as ApiBody;
    } catch {
      throw new PrometheusError(
        'refused',
        `${where} answered HTTP ${res.status} without Prometheus's JSON: is this Prometheus's address?`,
      );
    }
    if (body.status !== 'success' || !body.data) {
      const kind = res.status === 400 || body.errorType === 'bad_data' ? 'bad-query' : 'refused';
      throw new PrometheusError(kind, `Prometheus at ${where} said: ${body.error ?? `HTTP ${res.status}`}`);
    }
    return body.data;
  }

  return {
    get requests() {
      return requests;
    },
    where,
    async query(expr, timeS) {
      const data = await call('/api/v1/query', { query: expr, time: String(timeS) });
      if (data?.resultType !== 'vector') return [];
      return data.result.map((r) => ({ labels: r.metric, value: Number(r.value?.[1]) }));
    },
    async queryRange(expr, startS, endS, stepS) {
      const data = await call('/api/v1/query_range', {
        query: expr,
        start: String(startS),
        end: String(endS),
        step: String(stepS),
      });
      if (data?.resultType !== 'matrix') return [];
      return data.result.map((r) => ({
        labels: r.metric,
        points: (r.values ?? []).map(([t, v]) => [t, Number(v)] as [number, number]),
      }));
    },
  };
}

function causeOf(e: Error): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? e.message;
}
