/**
 * A fake Prometheus on loopback with one mode per hostile behaviour, for test/fleet/hostile.test.ts and
 * bench/hostile-memory.ts. In `fleet` mode it answers the fleet's own queries (server/fleet/collect.ts and
 * audit.ts) from a list of GPUs whose every value a test chooses, bad ones included; the other modes
 * misbehave at the HTTP level. `fleetAnswer` is the same answer without HTTP, for in-process clients.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InstantSeries, PrometheusClient, RangeSeries } from '../../server/fleet/prometheus-api.ts';

/** One GPU of the fake fleet: its labels and its value for each series (a number or text such as "NaN"). */
export interface FakeGpu {
  labels: Record<string, string>;
  /** Value per series name; `energy` is the `increase()` of the energy counter. Missing: no series. */
  values: Record<string, number | string>;
}

export type HostileMode =
  | 'fleet' // the fleet's queries answered from `gpus`
  | 'huge-body' // a 200 MB answer (well-formed JSON that never ends in time)
  | 'many-series' // every range query answered with `seriesCount` series
  | 'stall-mid-body' // HTTP 200 and half an answer, then nothing
  | 'hostile-error' // HTTP 400 whose error text holds escape codes, bidi controls and 100 KB
  | 'echo-auth' // HTTP 422 whose error text repeats the Authorization header it got
  | 'unauthorized' // HTTP 401
  | 'html' // HTTP 200 with a web page (the address of something else)
  | 'redirect'; // HTTP 307 to /stolen on the same fake: a client that follows it forwards its credentials

/** A busy, healthy H100: GPU-Util 100 %, SM activity 0.9, tensor 0.6 (values as dcgm-exporter sends them). */
export const BUSY: Record<string, number> = {
  DCGM_FI_DEV_GPU_UTIL: 100,
  DCGM_FI_DEV_MEM_COPY_UTIL: 40,
  DCGM_FI_PROF_GR_ENGINE_ACTIVE: 0.95,
  DCGM_FI_PROF_SM_ACTIVE: 0.9,
  DCGM_FI_PROF_SM_OCCUPANCY: 0.5,
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: 0.6,
  DCGM_FI_PROF_DRAM_ACTIVE: 0.4,
  DCGM_FI_DEV_FB_USED: 60_000,
  DCGM_FI_DEV_FB_FREE: 21_000,
  DCGM_FI_DEV_POWER_USAGE: 620,
  DCGM_FI_DEV_POWER_MGMT_LIMIT: 700,
  DCGM_FI_DEV_SM_CLOCK: 1980,
  DCGM_FI_DEV_GPU_TEMP: 68,
  DCGM_FI_DEV_MEMORY_TEMP: 70,
  DCGM_FI_DEV_CLOCKS_EVENT_REASONS: 0,
  energy: 3_600_000 * 620, // 620 W for an hour, mJ
};

/** An idle GPU: nothing running, no memory held. */
export const IDLE: Record<string, number> = {
  ...BUSY,
  DCGM_FI_DEV_GPU_UTIL: 0,
  DCGM_FI_DEV_MEM_COPY_UTIL: 0,
  DCGM_FI_PROF_GR_ENGINE_ACTIVE: 0,
  DCGM_FI_PROF_SM_ACTIVE: 0,
  DCGM_FI_PROF_SM_OCCUPANCY: 0,
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: 0,
  DCGM_FI_PROF_DRAM_ACTIVE: 0,
  DCGM_FI_DEV_FB_USED: 0,
  DCGM_FI_DEV_FB_FREE: 81_000,
  DCGM_FI_DEV_POWER_USAGE: 70,
  DCGM_FI_DEV_SM_CLOCK: 345,
  energy: 3_600_000 * 70,
};

/** GPU `i` on its own host, with `values` (default BUSY) and extra `labels`. */
export function fakeGpu(i: number, values: Record<string, number | string> = BUSY, labels = {}): FakeGpu {
  return {
    labels: {
      instance: `10.0.${Math.floor(i / 250)}.${i % 250}:9400`,
      gpu: '0',
      UUID: `GPU-${String(i).padStart(8, '0')}`,
      Hostname: `gpu-${String(i).padStart(5, '0')}`,
      modelName: 'NVIDIA H100 80GB HBM3',
      ...labels,
    },
    values,
  };
}

const text = (v: number | string) => String(v);
const timesOf = (p: URLSearchParams): number[] => {
  // In whole ms, as Prometheus counts (a fractional step summed in floats would overshoot the end).
  const [start, end, step] = ['start', 'end', 'step'].map((k) => Math.round(Number(p.get(k)) * 1000)) as [
    number,
    number,
    number,
  ];
  const out: number[] = [];
  for (let t = start; t <= end && out.length < 11_000; t += Math.max(1, step)) out.push(t / 1000);
  return out;
};

/**
 * The answer (`data` of Prometheus's JSON) to one fleet query: the dcgm-exporter range query and newest scrape, the
 * segments' `label_replace` union, the energy `increase()`; node-exporter's queries get nothing (hosts unknown).
 */
export function fleetAnswer(path: string, params: URLSearchParams, all: readonly FakeGpu[]): unknown {
  if (path.includes('/label/instance/values')) return [...new Set(all.map((g) => g.labels['instance'] ?? ''))].sort();
  const q = params.get('query') ?? '';
  // A batch's `instance=~"…"` matcher (server/fleet/batches.ts) selects its hosts; other matchers are ignored.
  const batch = /instance=~"((?:[^"\\]|\\.)*)"/.exec(q)?.[1];
  const only = batch === undefined ? null : new RegExp(`^(?:${batch.replace(/\\(.)/g, '$1')})$`);
  const gpus = only ? all.filter((g) => only.test(g.labels['instance'] ?? '')) : all;
  // dcgm-exporter's series by name (collect.ts: the live view's range read, the newest scrape's instant one): one
  // series a GPU and name it sends, its value as `sample` gives it.
  const names = /__name__=~"(DCGM_[^"]+)"/.exec(q)?.[1]?.split('|');
  const perSeries = (sample: (v: number | string) => object) =>
    gpus.flatMap((g) =>
      (names ?? [])
        .filter((n) => g.values[n] !== undefined)
        .map((n) => ({ metric: { __name__: n, ...g.labels }, ...sample(g.values[n]!) })),
    );
  if (path.endsWith('/query')) {
    const t = Number(params.get('time'));
    if (names) return { resultType: 'vector', result: perSeries((v) => ({ value: [t, text(v)] })) };
    if (!q.includes('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION')) return { resultType: 'vector', result: [] };
    return {
      resultType: 'vector',
      result: gpus
        .filter((g) => g.values['energy'] !== undefined)
        .map((g) => ({ metric: g.labels, value: [t, text(g.values['energy']!)] })),
    };
  }
  const times = timesOf(params);
  const points = (v: number | string) => times.map((t) => [t, text(v)]);
  const tagged = [...q.matchAll(/"saturate_series", "([^"]+)"/g)].map((m) => m[1]!);
  if (tagged.length)
    return {
      resultType: 'matrix',
      result: gpus.flatMap((g) =>
        tagged
          .filter((name) => name.startsWith('reason:') || g.values[name] !== undefined)
          .map((name) => ({
            metric: { ...g.labels, saturate_series: name },
            values: points(name.startsWith('reason:') ? 0 : g.values[name]!),
          })),
      ),
    };
  return { resultType: 'matrix', result: perSeries((v) => ({ values: points(v) })) };
}

/** A PrometheusClient answering from `gpus` in process (no HTTP): for properties over many random fleets. */
export function fakeClient(gpus: readonly FakeGpu[]): PrometheusClient {
  let requests = 0;
  const ask = (path: string, params: Record<string, string>) => {
    requests++;
    // Through JSON, as over HTTP: values travel as strings and come back through Number().
    return JSON.parse(JSON.stringify(fleetAnswer(path, new URLSearchParams(params), gpus))) as {
      result: { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] }[];
    };
  };
  return {
    get requests() {
      return requests;
    },
    where: 'http://fake-prometheus',
    async labelValues(label, match, startS, endS): Promise<string[]> {
      requests++;
      const params = new URLSearchParams({ 'match[]': match, start: String(startS), end: String(endS) });
      return fleetAnswer(`/api/v1/label/${label}/values`, params, gpus) as string[];
    },
    async query(expr, timeS): Promise<InstantSeries[]> {
      return ask('/api/v1/query', { query: expr, time: String(timeS) }).result.map((r) => ({
        labels: r.metric,
        value: Number(r.value![1]),
      }));
    },
    async queryRange(expr, startS, endS, stepS): Promise<RangeSeries[]> {
      const params = { query: expr, start: String(startS), end: String(endS), step: String(stepS) };
      return ask('/api/v1/query_range', params).result.map((r) => ({
        labels: r.metric,
        points: r.values!.map(([t, v]) => [t, Number(v)] as [number, number]),
      }));
    },
  };
}

/** A running fake: its URL, what it was asked, and the mode and fleet a test may change between requests. */
export interface HostilePrometheus {
  url: string;
  mode: HostileMode;
  gpus: FakeGpu[];
  /** Series per answer in `many-series` mode. */
  seriesCount: number;
  /** Bytes of the answer in `huge-body` mode. */
  bodyBytes: number;
  /** Every request's path, in order. */
  readonly requests: string[];
  /** Answers still being written (a stalled or huge body counts until its socket closes). */
  readonly open: number;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 on a free port. */
export async function startHostilePrometheus(
  mode: HostileMode = 'fleet',
  gpus: FakeGpu[] = [],
): Promise<HostilePrometheus> {
  const requests: string[] = [];
  let open = 0;
  const fake: HostilePrometheus = {
    url: '',
    mode,
    gpus,
    seriesCount: 100_000,
    bodyBytes: 200 * 1024 * 1024,
    requests,
    get open() {
      return open;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(req.url ?? '');
      open++;
      res.on('close', () => open--);
      answer(fake, req, res, new URLSearchParams(body || (req.url ?? '').split('?')[1] || ''));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

function answer(fake: HostilePrometheus, req: IncomingMessage, res: ServerResponse, params: URLSearchParams): void {
  const path = (req.url ?? '').split('?')[0]!;
  switch (fake.mode) {
    case 'fleet':
      return json(res, 200, { status: 'success', data: fleetAnswer(path, params, fake.gpus) });
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!doctype html><title>Grafana</title><script>alert(1)</script>');
    case 'redirect':
      if (path === '/stolen') return json(res, 200, { status: 'success', data: { resultType: 'matrix', result: [] } });
      res.writeHead(307, { location: '/stolen' });
      return void res.end();
    case 'unauthorized':
      return json(res, 401, { status: 'error', errorType: 'unauthorized', error: 'unauthorized' });
    case 'echo-auth':
      return json(res, 422, {
        status: 'error',
        errorType: 'execution',
        error: `cannot use the credential you sent: ${req.headers.authorization ?? 'none'}`,
      });
    case 'hostile-error':
      return json(res, 400, {
        status: 'error',
        errorType: 'bad_data',
        error: `\u001b]0;pwned\u0007\u001b[2J\u001b[31mparse error\u202e at char 7\r\n${'A'.repeat(100_000)}`,
      });
    case 'stall-mid-body':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"success","data":{"resultType":"matrix","result":[');
      return; // and nothing more, until the client gives up
    case 'huge-body':
      return streamHuge(res, fake.bodyBytes);
    case 'many-series':
      return streamManySeries(res, fake.seriesCount, path.endsWith('/query'));
  }
}

/** `bytes` of one well-formed answer, one series with a label that never ends in time, written as read. */
function streamHuge(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  res.write('{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"pad":"');
  const more = (): void => {
    while (sent < bytes) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end('"},"values":[]}]}}');
  };
  more();
}

const manySeriesCache = new Map<string, string[]>();

/** `count` series, each its own GPU, written as read, in batches of 1,000 series made once per count. */
function streamManySeries(res: ServerResponse, count: number, instant: boolean): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const now = 1_764_547_200; // a fixed time: the batches are made once and reused
  const key = `${count}|${instant}`;
  let batches = manySeriesCache.get(key);
  if (!batches) {
    const one = (i: number): string => {
      const labels = JSON.stringify(fakeGpu(i).labels);
      return instant
        ? `{"metric":${labels},"value":[${now},"1"]}`
        : `{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL",${labels.slice(1)},"values":[[${now},"100"]]}`;
    };
    batches = [];
    for (let i = 0; i < count; i += 1000)
      batches.push(Array.from({ length: Math.min(1000, count - i) }, (_, k) => one(i + k)).join(','));
    manySeriesCache.set(key, batches);
  }
  res.write(`{"status":"success","data":{"resultType":"${instant ? 'vector' : 'matrix'}","result":[`);
  let b = 0;
  const more = (): void => {
    while (b < batches.length && !res.destroyed) {
      const ok = res.write(`${b ? ',' : ''}${batches[b++]}`);
      if (!ok) return void res.once('drain', more);
    }
    res.end(']}}');
  };
  more();
}
