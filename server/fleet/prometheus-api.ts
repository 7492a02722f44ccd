/**
 * A small client for Prometheus's HTTP query API (`/api/v1/query`, `/api/v1/query_range`), as the fleet
 * reader and the audit CLI use it. Credentials (a bearer token read from a file, or basic auth) stay in this
 * module: errors and logs name the Prometheus URL without them.
 * See https://prometheus.io/docs/prometheus/latest/querying/api/
 */
import { readCredentialFile } from './credentials.ts';
import { redactUrl, terminalEnds, terminalText, withoutSecrets } from './plain-text.ts';
import { PrometheusError } from './prometheus-error.ts';
import { DEFAULT_QUERY_TIMEOUT_S, MAX_QUERY_TIMEOUT_S, parseQueryTimeout } from './query-timeout.ts';

export { DEFAULT_QUERY_TIMEOUT_S, MAX_QUERY_TIMEOUT_S, parseQueryTimeout, PrometheusError, readCredentialFile };

export interface PrometheusOptions {
  /** Base URL, e.g. `http://prometheus:9090` (a path prefix such as `/prom` is kept). */
  url: string;
  /** A file holding a bearer token (one line, read once). */
  tokenFile?: string | undefined;
  /** A bearer token already read (readCredentialFile); `tokenFile` wins. */
  bearerToken?: string | undefined;
  /** Basic auth as `user:password`. */
  basicAuth?: string | undefined;
  /** A file holding `user:password` (one line, read once; wins over `basicAuth`). */
  basicAuthFile?: string | undefined;
  /** Per request, ms: a query whose whole answer has not arrived by then is a timeout (default DEFAULT_QUERY_TIMEOUT_S). */
  timeoutMs?: number;
  /** The most bytes the answers being read at one time may hold together (default MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** The most series the answers being read at one time may hold together (default MAX_SERIES). */
  maxSeries?: number;
  /** The fetch to use (tests pass none: the real one). */
  fetchImpl?: typeof fetch;
  /**
   * Ask for gzip-compressed answers (default true). False asks for them uncompressed (`accept-encoding: identity`,
   * `--no-gzip`), for an audit that runs near its engine. Measured on the 512-GPU independent cluster over 24 h
   * through the recording rules (engine CPU from process_cpu_seconds_total, 5 audits, 2026-12-03): Prometheus 2.42
   * 842 ms of CPU an audit with gzip, 678 ms without; VictoriaMetrics 1.79 472 and 426 ms. The bytes on the wire grow
   * 6–11× (the segments' largest answer is 4.3 MB, 743 KB gzipped; the live view's 3.3 MB, 312 KB).
   */
  gzip?: boolean;
  /**
   * The flags a too-slow or too-large message tells the operator to change, as their program spells them (the audit's
   * by default; the lab server's are `--prometheus-selector` and `--prometheus-query-timeout`).
   */
  flags?: { selector: string; timeout: string };
}

/**
 * The default cap on one answer's size. A GPU's live view is about 10 KB (15 series of 21 points with their
 * labels), so this holds some 5,000 GPUs; past it the audit stops reading and says to narrow the selector.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** The default cap on the series in one answer: some 3,000–4,000 GPUs with every default dcgm-exporter series. */
export const MAX_SERIES = 50_000;

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
  /**
   * The values `label` takes on the series `match` selects between `startS` and `endS` (`/api/v1/label/…/values`):
   * read from the index, so cheap for any fleet and window.
   */
  labelValues(label: string, match: string, startS: number, endS: number): Promise<string[]>;
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

/** A PromQL expression shortened for a message: its start and its end, where a selector's matchers are. */
const shortQuery = (expr: string) => terminalEnds(expr, 100, 130);
/**
 * An engine's error shortened for a message: its start and its end. VictoriaMetrics puts the whole query first and
 * its reason last ("…: too many points …; cannot exceed -search.maxPointsPerTimeseries=30000"), so a cut end loses it.
 */
const engineSaid = (error: string) => terminalEnds(error, 100, 220);

/**
 * The engine's own time limit in its error text, as it names it, or null: VictoriaMetrics answers HTTP 422 with
 * "timeout exceeded during query execution: 30.000 seconds (elapsed …); the timeout can be adjusted with
 * `-search.maxQueryDuration` command-line flag" (checked against Debian's 1.79), after the whole query, so a cut
 * message would lose it. Prometheus says "query timed out in …" with errorType "timeout" (no limit named).
 * @example engineTimeout('error when executing query="up": cannot execute query: timeout exceeded during query execution: 30.000 seconds (elapsed 31.2 seconds); the timeout can be adjusted with `-search.maxQueryDuration` command-line flag') // '30 s, -search.maxQueryDuration'
 * @example engineTimeout('parse error at char 7') // null
 */
export function engineTimeout(error: string): string | null {
  const vm = /timeout exceeded during query execution: ([\d.]+) seconds.*?`(-[\w.]+)`/s.exec(error);
  return vm ? `${Number(vm[1])} s, ${vm[2]}` : null;
}

/** A client for the Prometheus at `opts.url`. Throws a `PrometheusError` for a URL it cannot use. */
export function createPrometheusClient(opts: PrometheusOptions): PrometheusClient {
  let base: URL;
  try {
    base = new URL(opts.url);
  } catch {
    throw new PrometheusError(
      'local',
      `"${redactUrl(opts.url)}" is not a URL: give Prometheus's address, e.g. http://127.0.0.1:9090`,
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new PrometheusError(
      'local',
      `Prometheus must be reached over http or https, not ${terminalText(base.protocol, 20)}`,
    );
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.gzip === false) headers['accept-encoding'] = 'identity';
  const secrets: string[] = [];
  if (base.username || base.password) {
    const user = decodeURIComponent(base.username);
    const password = decodeURIComponent(base.password);
    secrets.push(password, base.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  const basicAuth = opts.basicAuthFile ? readCredentialFile(opts.basicAuthFile, 'basic-auth') : opts.basicAuth;
  if (basicAuth) {
    secrets.push(basicAuth, basicAuth.slice(basicAuth.indexOf(':') + 1));
    headers['authorization'] = `Basic ${Buffer.from(basicAuth).toString('base64')}`;
  }
  const token = opts.tokenFile ? readCredentialFile(opts.tokenFile, 'token') : opts.bearerToken;
  if (token) {
    secrets.push(token);
    headers['authorization'] = `Bearer ${token}`;
  }
  if (headers['authorization']) secrets.push(headers['authorization'], headers['authorization'].split(' ')[1]!);
  const where = base.origin + base.pathname.replace(/\/$/, '');
  const doFetch = opts.fetchImpl ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_S * 1000;
  const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxSeries = opts.maxSeries ?? MAX_SERIES;
  let requests = 0;
  // What the answers being read right now hold together: the caps bound them all, so eight queries in parallel
  // (an audit) cannot hold eight times the cap.
  let inFlightBytes = 0;
  let inFlightSeries = 0;
  /** Every message leaves with the credentials taken out and control characters stripped. */
  const fail = (kind: PrometheusError['kind'], message: string) =>
    new PrometheusError(kind, terminalText(withoutSecrets(message, secrets), 1000));
  const flags = opts.flags ?? { selector: '--selector', timeout: '--query-timeout' };
  const tooSlow = (expr: string) =>
    fail(
      'timeout',
      `Prometheus took longer than ${timeoutMs / 1000} s for query ${shortQuery(expr)}; try ${flags.timeout} or the recording rules in deploy/prometheus/saturate-rules.yml`,
    );

  /**
   * One API call. Queries are POSTed (long selectors fit in a body, not a URL); `list` endpoints (label values,
   * GET only in Prometheus) answer a list as their data instead of `{ resultType, result }`.
   */
  async function call(path: string, params: Record<string, string>, list = false): Promise<ApiBody['data']> {
    requests++;
    const form = new URLSearchParams(params).toString();
    const url = list ? `${where}${path}?${form}` : `${where}${path}`;
    const expr = params['query'] ?? params['match[]'] ?? '';
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await doFetch(url, {
        method: list ? 'GET' : 'POST',
        headers: list ? headers : { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        ...(list ? {} : { body: form }),
        signal,
        redirect: 'error',
      });
    } catch (e) {
      const err = e as Error;
      if (err.name === 'TimeoutError' || err.name === 'AbortError' || signal.aborted || undiciTimeout(err))
        throw tooSlow(expr);
      throw fail('unreachable', `cannot reach Prometheus at ${where}: ${causeOf(err)}`);
    }
    if (res.status === 401 || res.status === 403) {
      void res.body?.cancel().catch(() => {});
      throw fail(
        'unauthorized',
        `Prometheus at ${where} refused the request (HTTP ${res.status}): check --prometheus-token-file or the user and password`,
      );
    }
    const text = await readCapped(res, signal, expr);
    let body: ApiBody;
    try {
      body = JSON.parse(text) as ApiBody;
    } catch {
      throw fail(
        'refused',
        `${where} answered HTTP ${res.status} without Prometheus's JSON: is this Prometheus's address?`,
      );
    }
    const shaped = list ? Array.isArray(body?.data) : Array.isArray(body?.data?.result);
    if (body?.status !== 'success' || !body.data || !shaped) {
      const kind = res.status === 400 || body?.errorType === 'bad_data' ? 'bad-query' : 'refused';
      const said = typeof body?.error === 'string' ? engineSaid(body.error) : `HTTP ${res.status}`;
      const own = typeof body?.error === 'string' ? engineTimeout(body.error) : null;
      const timedOut = own !== null || body?.errorType === 'timeout' || res.status === 503;
      if (timedOut || /query timed out|deadline exceeded/i.test(body?.error ?? ''))
        throw fail(
          'timeout',
          `${where} stopped query ${shortQuery(expr)} at its own time limit${own ? ` (${own})` : ''}; raise it (Prometheus: --query.timeout, default 2 min; VictoriaMetrics: -search.maxQueryDuration, default 30 s) or deploy the recording rules in deploy/prometheus/saturate-rules.yml`,
        );
      throw fail(kind, `Prometheus at ${where} said: ${said}`);
    }
    return body.data;
  }

  /**
   * The body as text, read as it arrives: refused once the answers in flight hold more than `maxBytes` or
   * `maxSeries` (counted as `"metric":` keys go by), before any is all in memory, and a timeout while it streams reported as a timeout.
   */
  async function readCapped(res: Response, signal: AbortSignal, expr: string): Promise<string> {
    const tooBig = (what: string) =>
      fail(
        'too-big',
        `Prometheus answered ${what} for query ${shortQuery(expr)} with the queries read beside it; narrow ${flags.selector} or use the recording rules in deploy/prometheus/saturate-rules.yml`,
      );
    const declared = Number(res.headers.get('content-length'));
    if (declared > maxBytes) {
      void res.body?.cancel().catch(() => {});
      throw tooBig(`more than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    }
    if (!res.body) return '';
    const reader = res.body.getReader();
    // Raw bytes until the end (external memory, not V8 strings): an answer refused half-way costs no decoding.
    const parts: Buffer[] = [];
    let bytes = 0;
    let series = 0;
    let tail = Buffer.alloc(0);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        bytes += chunk.length;
        inFlightBytes += chunk.length;
        if (inFlightBytes > maxBytes) throw tooBig(`more than ${Math.round(maxBytes / 1024 / 1024)} MB`);
        parts.push(chunk);
        // A key split between two chunks is counted in the window across their boundary.
        const more = countOf(chunk) + countOf(Buffer.concat([tail, chunk.subarray(0, METRIC_KEY.length - 1)]));
        series += more;
        inFlightSeries += more;
        tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - (METRIC_KEY.length - 1))));
        if (inFlightSeries > maxSeries) throw tooBig(`more than ${maxSeries.toLocaleString('en-US')} series`);
      }
    } catch (e) {
      void reader.cancel().catch(() => {});
      if (e instanceof PrometheusError) throw e;
      if (signal.aborted || undiciTimeout(e as Error)) throw tooSlow(expr);
      throw fail('unreachable', `Prometheus at ${where} broke off its answer: ${causeOf(e as Error)}`);
    } finally {
      inFlightBytes -= bytes;
      inFlightSeries -= series;
    }
    return Buffer.concat(parts, bytes).toString('utf8');
  }

  return {
    get requests() {
      return requests;
    },
    where,
    async query(expr, timeS) {
      const data = await call('/api/v1/query', { query: expr, time: String(timeS) });
      if (data?.resultType !== 'vector') return [];
      return data.result.map((r) => ({
        labels: labelsOf(r?.metric),
        value: Array.isArray(r?.value) ? Number(r.value[1]) : NaN,
      }));
    },
    async labelValues(label, match, startS, endS) {
      const data: unknown = await call(
        `/api/v1/label/${encodeURIComponent(label)}/values`,
        { 'match[]': match, start: String(startS), end: String(endS) },
        true,
      );
      return Array.isArray(data) ? data.filter((v): v is string => typeof v === 'string') : [];
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
        labels: labelsOf(r?.metric),
        points: (Array.isArray(r?.values) ? r.values : []).map((p): [number, number] =>
          Array.isArray(p) ? [Number(p[0]), Number(p[1])] : [NaN, NaN],
        ),
      }));
    },
  };
}

/** The key each series of an answer has once: counting it counts series as they arrive. */
const METRIC_KEY = Buffer.from('"metric":');

/** Occurrences of METRIC_KEY in `bytes`. */
function countOf(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(METRIC_KEY); i >= 0; i = bytes.indexOf(METRIC_KEY, i + METRIC_KEY.length)) n++;
  return n;
}

/** A series' labels as plain strings (a hostile answer may send anything). */
function labelsOf(metric: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (metric && typeof metric === 'object')
    for (const [k, v] of Object.entries(metric)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Node's fetch timing out on its own (no headers, or no body data, for 300 s): slow, not unreachable. */
const undiciTimeout = (e: Error): boolean =>
  /UND_ERR_(HEADERS|BODY)_TIMEOUT/.test(`${(e as { code?: string }).code} ${causeOf(e)}`);

function causeOf(e: Error): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? e.message;
}
