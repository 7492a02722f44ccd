/**
 * `--no-gzip` (`npm run audit`) and `--prometheus-no-gzip` (the lab server): the engine's answers uncompressed.
 * Compressing them is about a fifth of Prometheus's CPU on an audit (server/fleet/prometheus-api.ts, the `gzip`
 * option), so an audit that runs near its engine may skip it. Between the audit and this run's engine
 * (`FLEET_ENGINE`) sits a plain forwarding proxy that notes what each request asked for and how each answer came.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { EXIT, runAudit } from '../../scripts/audit.ts';
import { parseCli } from '../../server/cli.ts';
import { resolveSource } from '../../server/sources/index.ts';
import { GPUS_PER_HOST, scenarioCluster, writeClusterOpenMetrics } from './cluster.ts';
import { PROMETHEUS_TEST_LIMITS, startPrometheus, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOSTS = scenarioCluster().slice(0, 3);
let engine: RunningPrometheus;
let proxy: Server;
let proxyUrl: string;
let dir: string;

/** One request through the proxy: what it asked for, how its answer came, and the answer's bytes on the wire. */
interface Seen {
  path: string;
  acceptEncoding: string;
  contentEncoding: string;
  wireBytes: number;
}
const seen: Seen[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-gzip-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - 3_600_000, END_MS, 15_000);
  engine = await startPrometheus({ openMetricsFile: file });
  const up = new URL(engine.url);
  proxy = createServer((req, res) => {
    const s: Seen = {
      path: (req.url ?? '').split('?')[0]!,
      acceptEncoding: String(req.headers['accept-encoding'] ?? ''),
      contentEncoding: '',
      wireBytes: 0,
    };
    const out = request(
      { host: up.hostname, port: up.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        s.contentEncoding = String(answer.headers['content-encoding'] ?? '');
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => (s.wireBytes += chunk.length));
        answer.on('end', () => seen.push(s));
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await engine?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => void seen.splice(0));

async function auditJson(extra: string[]): Promise<{ gpus: unknown[] }> {
  let out = '';
  let err = '';
  const args = ['--prometheus', proxyUrl, '--window', '1h', '--end', new Date(END_MS).toISOString(), '--json'];
  const code = await runAudit(
    [...args, ...extra],
    (s) => (out += s),
    (s) => (err += s),
  );
  expect(code, err).toBe(EXIT.ok);
  return JSON.parse(out) as { gpus: unknown[] };
}

const queries = () => seen.filter((s) => s.path.startsWith('/api/v1/query'));
const wire = (list: Seen[]) => list.reduce((a, s) => a + s.wireBytes, 0);

describe('answers compressed or not', () => {
  test('by default the audit asks for gzip and the engine compresses its answers', async () => {
    const report = await auditJson([]);
    expect(report.gpus).toHaveLength(HOSTS.length * GPUS_PER_HOST);
    expect(queries().length).toBeGreaterThan(5);
    for (const s of queries()) expect(s.acceptEncoding).toMatch(/\bgzip\b/);
    expect(queries().some((s) => s.contentEncoding === 'gzip')).toBe(true);
  });

  test('--no-gzip: every request asks for identity, no answer is compressed, the report is the same', async () => {
    const zipped = await auditJson([]);
    const zippedBytes = wire(queries());
    seen.splice(0);
    const plain = await auditJson(['--no-gzip']);
    expect(queries().length).toBeGreaterThan(5);
    for (const s of queries()) {
      expect(s.acceptEncoding).toBe('identity');
      expect(s.contentEncoding).toBe('');
    }
    expect(wire(queries())).toBeGreaterThan(2 * zippedBytes);
    expect(plain.gpus).toEqual(zipped.gpus);
  });

  test('the lab server: --prometheus-no-gzip reads the fleet uncompressed; the flag needs a prometheus: source', async () => {
    const o = parseCli(['--source', `prometheus:${proxyUrl}`, '--prometheus-no-gzip']);
    expect(o.prometheus.gzip).toBe(false);
    expect(parseCli(['--source', `prometheus:${proxyUrl}`]).prometheus.gzip).toBe(true);
    expect(() => parseCli(['--prometheus-no-gzip'])).toThrow(/goes with --source prometheus:/);
    vi.useFakeTimers({ toFake: ['Date'], now: END_MS });
    try {
      const src = await resolveSource(o.source, { prometheus: o.prometheus, intervalMs: 3_600_000 });
      try {
        expect(src.devices()).toHaveLength(HOSTS.length * GPUS_PER_HOST);
      } finally {
        src.close();
      }
    } finally {
      vi.useRealTimers();
    }
    expect(queries().length).toBeGreaterThan(0);
    for (const s of queries()) expect([s.acceptEncoding, s.contentEncoding]).toEqual(['identity', '']);
  });
});
