/**
 * A Prometheus client for benchmarks that adds up the wall time with at least one query in flight and the samples
 * Prometheus read for them (`stats=all`: totalQueryableSamples, a count the machine's load does not change), and
 * keeps each query's own line (expression head, ms, samples) for a per-query breakdown.
 */
import { performance } from 'node:perf_hooks';
import { createPrometheusClient, type PrometheusClient } from '../server/fleet/prometheus-api.ts';

/** One HTTP query: its expression's first characters, its own wall time and the samples Prometheus read for it. */
export interface QueryCost {
  head: string;
  ms: number;
  /** Prometheus's own time on it (stats.timings.execTotalTime), ms: its queue and evaluation, not the answer's JSON. */
  engineMs: number;
  samples: number;
  /** Series in the answer. */
  series: number;
}

/** How many characters of an expression a breakdown line shows. */
export const HEAD_CHARS = 90;

/**
 * The expression of a query's form body (or of a GET URL's `match[]`), cut to `chars`.
 * @example queryHead('query=avg_over_time(x%5B1h%5D)&time=1') // 'avg_over_time(x[1h])'
 */
export function queryHead(bodyOrUrl: string, chars = HEAD_CHARS): string {
  const q = bodyOrUrl.includes('?') ? bodyOrUrl.slice(bodyOrUrl.indexOf('?') + 1) : bodyOrUrl;
  const p = new URLSearchParams(q);
  const expr = p.get('query') ?? p.get('match[]') ?? bodyOrUrl;
  return expr.length > chars ? `${expr.slice(0, chars - 1)}…` : expr;
}

/**
 * The client, and `take()`: the time, samples and queries since the last take. `base` sends the requests (default:
 * fetch; patientFetch for queries that run past undici's 300 s), `timeoutMs` is the client's own limit.
 */
export function timedClient(
  url: string,
  base: typeof fetch = fetch,
  timeoutMs = 300_000,
  gzip = true,
): {
  client: PrometheusClient;
  take(): { ms: number; samples: number; series: number; queries: QueryCost[] };
} {
  let ms = 0;
  let samples = 0;
  let series = 0;
  let queries: QueryCost[] = [];
  let inFlight = 0;
  let since = 0;
  const timedFetch: typeof fetch = async (input, init) => {
    if (inFlight++ === 0) since = performance.now();
    const t0 = performance.now();
    const cost: QueryCost = {
      head: queryHead(typeof init?.body === 'string' ? init.body : String(input)),
      ms: 0,
      engineMs: 0,
      samples: 0,
      series: 0,
    };
    try {
      const withStats = typeof init?.body === 'string' ? { ...init, body: `${init.body}&stats=all` } : init;
      const res = await base(input, withStats);
      const body = await res.arrayBuffer();
      try {
        const data = (
          JSON.parse(Buffer.from(body).toString()) as {
            data?: {
              result?: unknown;
              stats?: { samples?: { totalQueryableSamples?: number }; timings?: { execTotalTime?: number } };
            };
          }
        ).data;
        const stats = data?.stats;
        cost.series = Array.isArray(data?.result) ? data.result.length : 0;
        series += cost.series;
        cost.samples = stats?.samples?.totalQueryableSamples ?? 0;
        cost.engineMs = (stats?.timings?.execTotalTime ?? 0) * 1000;
        samples += cost.samples;
      } catch {
        /* not JSON: counted as no samples */
      }
      return new Response(body, { status: res.status, headers: res.headers });
    } finally {
      cost.ms = performance.now() - t0;
      queries.push(cost);
      if (--inFlight === 0) ms += performance.now() - since;
    }
  };
  return {
    client: createPrometheusClient({ url, fetchImpl: timedFetch, timeoutMs, gzip }),
    take: () => {
      const t = { ms, samples, series, queries };
      ms = 0;
      samples = 0;
      series = 0;
      queries = [];
      return t;
    },
  };
}

/**
 * Queries as a Markdown table, the costliest first: expression head, ms (its own wall time, overlapping the others'),
 * Prometheus's own ms, samples; and the sums.
 */
export function breakdownMarkdown(title: string, queries: readonly QueryCost[]): string {
  const rows = [...queries].sort((a, b) => b.ms - a.ms);
  const cell = (s: string) => `\`${s.replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
  const sum = (f: (q: QueryCost) => number) => queries.reduce((a, q) => a + f(q), 0);
  return [
    `${title}: ${queries.length} queries, Prometheus's own time ${sum((q) => q.engineMs).toFixed(0)} ms in all`,
    '',
    '| query (head) | ms | Prometheus ms | samples |',
    '|---|---:|---:|---:|',
    ...rows.map(
      (q) =>
        `| ${cell(q.head)} | ${q.ms.toFixed(0)} | ${q.engineMs.toFixed(0)} | ${q.samples.toLocaleString('en-US')} |`,
    ),
  ].join('\n');
}
