/**
 * The fleet audit against Debian's real Prometheus (2.42): a simulated cluster backfilled with promtool,
 * then read as a platform engineer would, through `npm run audit`'s own entry point.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runAudit, EXIT } from '../../scripts/audit.ts';
import { writeClusterOpenMetrics, GPUS_PER_HOST, type SimHost } from './cluster.ts';
import {
  freePort,
  hasPrometheus,
  startPrometheus,
  type RunningPrometheus,
  PROMETHEUS_TEST_LIMITS,
} from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const END = new Date(END_MS).toISOString();
const HOUR = 3_600_000;

/** A cluster with the awkward parts real fleets have. */
const HOSTS: SimHost[] = [
  {
    hostname: 'gpu-a',
    phases: [{ fromMs: 0, scenario: 'idle' }],
    labels: { pod: 'notebook-1', namespace: 'research' },
  },
  {
    hostname: 'gpu-b',
    phases: [{ fromMs: 0, scenario: 'small-kernels' }],
    labels: { exported_pod: 'train-b', exported_namespace: 'vision' },
  },
  { hostname: 'gpu-c', phases: [{ fromMs: 0, scenario: 'memory-bound' }], labels: { hpc_job: '4711' } },
  // Busy for the first hour, then idle but still allocated (memory held) for the second.
  {
    hostname: 'gpu-d',
    phases: [
      { fromMs: 0, scenario: 'compute-bound' },
      { fromMs: HOUR, scenario: 'idle' },
    ],
  },
  // A consumer card: no profiling fields at all.
  { hostname: 'gpu-e', phases: [{ fromMs: 0, scenario: 'compute-bound' }], noProfiling: true },
  // dcgm-exporter on this host died half-way through the last hour.
  { hostname: 'gpu-f', phases: [{ fromMs: 0, scenario: 'memory-bound' }], untilMs: END_MS - HOUR / 2 },
];

let prom: RunningPrometheus;
let dir: string;

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAudit(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

beforeAll(async () => {
  if (!hasPrometheus())
    throw new Error(
      'these tests run the real Prometheus: apt-get install prometheus (Debian 12 ships 2.42 with promtool)',
    );
  dir = mkdtempSync(join(tmpdir(), 'saturate-fleet-'));
  const file = join(dir, 'cluster.om');
  await writeClusterOpenMetrics(file, HOSTS, END_MS - 2 * HOUR, END_MS, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run audit against a real Prometheus', () => {
  test('every GPU is reported once, with its owner from pod, exported_pod or hpc_job', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--json']);
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as {
      gpus: {
        hostname: string;
        gpu: number;
        labels: { pod: string | null; namespace: string | null; job: string | null };
      }[];
      summary: { gpus: number };
      queries: number;
    };
    expect(report.summary.gpus).toBe(HOSTS.length * GPUS_PER_HOST);
    const keys = new Set(report.gpus.map((g) => `${g.hostname}/${g.gpu}`));
    expect(keys.size).toBe(HOSTS.length * GPUS_PER_HOST);
    const b = report.gpus.find((g) => g.hostname === 'gpu-b')!;
    expect(b.labels).toMatchObject({ pod: 'train-b', namespace: 'vision' });
    expect(report.gpus.find((g) => g.hostname === 'gpu-c')!.labels.job).toBe('4711');
    // Eleven queries for up to HOSTS_PER_QUERY hosts (the host names and the list of GPU hosts are asked for once,
    // node-exporter's hosts once per read, their CPU, load and memory in one query per read; one finds the oldest
    // sample, one the energy, one the scrape interval the live view reads at); each further batch of hosts adds two
    // (its live view and its window), and as many for node-exporter's.
    expect(report.queries).toBe(11);
  });

  test('the working GPUs are named for what they do, and the idle ones as waste', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--json']);
    const gpus = (JSON.parse(r.out) as { gpus: { hostname: string; verdict: { kind: string } }[] }).gpus;
    const kinds = (host: string) => new Set(gpus.filter((g) => g.hostname === host).map((g) => g.verdict.kind));
    expect(kinds('gpu-a')).toEqual(new Set(['idle-allocated']));
    expect(kinds('gpu-b')).toEqual(new Set(['small-kernels']));
    expect(kinds('gpu-c')).toEqual(new Set(['memory-bound']));
    expect(kinds('gpu-d')).toEqual(new Set(['idle-allocated']));
  });

  test('a GPU without profiling fields gets "can\'t tell" and what would decide it, never a guess', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--json']);
    const e = (
      JSON.parse(r.out) as { gpus: { hostname: string; verdict: { kind: string; decide?: string } }[] }
    ).gpus.filter((g) => g.hostname === 'gpu-e');
    for (const g of e) {
      expect(g.verdict.kind).toBe('cant-tell');
      expect(g.verdict.decide).toMatch(/SM|tensor|DRAM/);
    }
  });

  test('over 2 h, the GPU that went idle after an hour has about an hour of each', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '2h', '--end', END, '--json']);
    const d = (
      JSON.parse(r.out) as { gpus: { hostname: string; hours: Record<string, number>; wastefulHours: number }[] }
    ).gpus.filter((g) => g.hostname === 'gpu-d');
    for (const g of d) {
      expect(g.hours['compute-bound']).toBeGreaterThan(0.8);
      expect(g.hours['idle-allocated']).toBeGreaterThan(0.8);
      expect(g.wastefulHours).toBeCloseTo(g.hours['idle-allocated']!, 5);
    }
  });

  test('a GPU that stopped reporting stays in the report, with the hours it did report', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--json']);
    const gpus = (
      JSON.parse(r.out) as { gpus: { hostname: string; verdict: { kind: string; evidence: string[] } }[] }
    ).gpus.filter((g) => g.hostname === 'gpu-f');
    expect(gpus).toHaveLength(GPUS_PER_HOST);
    // Its last scrape is 30 min old: the live view has nothing, the window has half an hour.
    for (const g of gpus) expect(g.verdict.kind).toBe('cant-tell');
  });

  test('the Markdown report prices the wasteful hours and lists the most wasteful GPUs first', async () => {
    const out = join(dir, 'report.md');
    const r = await run([
      '--prometheus',
      prom.url,
      '--window',
      '1h',
      '--end',
      END,
      '--price-per-gpu-hour',
      '2.5',
      '--out',
      out,
    ]);
    expect(r.code).toBe(EXIT.ok);
    const md = readFileSync(out, 'utf8');
    expect(md).toMatch(/^# GPU waste audit: 1 h to 2026-11-30T12:00:00Z/);
    expect(md).toMatch(/\| Idle but allocated \| \d+\.\d \| \d+% \| \$\d+ \|/);
    const rows = md.split('\n').filter((l) => /^\| gpu-[a-f] \|/.test(l));
    expect(rows[0]).toMatch(/^\| gpu-[ad] \|/); // an idle host tops the list
  });

  test('without a price, each model is costed at its default list price, named with its source and date', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/costing about \$\d+ at each model's default list price \(below\)\./);
    expect(r.out).toMatch(/\| Idle but allocated \| \d+\.\d \| \d+% \| \$\d+ \|/);
    expect(r.out).toContain(
      '- NVIDIA H100 80GB HBM3: $3.99/GPU-hour, Lambda 8x NVIDIA H100 SXM, per GPU per hour, https://lambda.ai/instances, read 2026-09-20.',
    );
    const json = JSON.parse((await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--json'])).out);
    expect(json.gpus[0].pricePerGpuHour).toBe(3.99);
    expect(json.summary.wastefulCostUsd).toBeCloseTo(json.summary.wastefulHours * 3.99, 6);
    expect(json.summary.unpricedWastefulHours).toBe(0);
  });

  test('a selector that matches nothing exits 3 and says what to check', async () => {
    const r = await run(['--prometheus', prom.url, '--window', '1h', '--end', END, '--selector', '{hostname="nope"}']);
    expect(r.code).toBe(EXIT.noMatch);
    expect(r.err).toContain('no GPU matched {hostname="nope"}');
  });

  test('a selector in the wrong shape is a usage error, not a query', async () => {
    const r = await run(['--prometheus', prom.url, '--selector', 'hostname="x"']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toContain('a selector must look like {label="value"}');
  });
});

describe('when Prometheus cannot answer', () => {
  test('nothing listening: exit 2, naming the address', async () => {
    const port = await freePort();
    const r = await run(['--prometheus', `http://127.0.0.1:${port}`, '--window', '1h']);
    expect(r.code).toBe(EXIT.prometheus);
    expect(r.err).toContain(`cannot reach Prometheus at http://127.0.0.1:${port}`);
  });

  test('a Prometheus that hangs: a timeout (the audit exits 4, too slow)', async () => {
    const sockets: import('node:net').Socket[] = [];
    const server: Server = createServer(() => undefined); // accepts, never answers
    server.on('connection', (s) => sockets.push(s));
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const { createPrometheusClient, PrometheusError } = await import('../../server/fleet/prometheus-api.ts');
      const c = createPrometheusClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 300 });
      const err = await c.query('up', 0).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PrometheusError);
      expect((err as InstanceType<typeof PrometheusError>).kind).toBe('timeout');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  test('Prometheus with basic auth: the right password reads, a wrong one exits 2 without echoing it', async () => {
    const authed = await startPrometheus({
      basicAuth: {
        user: 'audit',
        password: 'fleet-test-password',
        // bcrypt (cost 4) of "fleet-test-password": Prometheus's web config stores only the hash.
        bcrypt: '$2b$04$zlOalWZ8ogKXrcdVVggoNurOTakIfP1G9.2vCi8iSkLrENi4ekDcy',
      },
    });
    const secrets = mkdtempSync(join(tmpdir(), 'saturate-auth-'));
    try {
      const good = join(secrets, 'good');
      const bad = join(secrets, 'bad');
      writeFileSync(good, 'audit:fleet-test-password\n');
      writeFileSync(bad, 'audit:wrong-password-123\n');
      const denied = await run(['--prometheus', authed.url, '--window', '1h', '--prometheus-basic-auth-file', bad]);
      expect(denied.code).toBe(EXIT.prometheus);
      expect(denied.err).toContain('refused the request (HTTP 401)');
      expect(denied.err).not.toContain('wrong-password-123');
      // Authenticated, an empty Prometheus: nothing matched (exit 3), which proves the request got through.
      const allowed = await run(['--prometheus', authed.url, '--window', '1h', '--prometheus-basic-auth-file', good]);
      expect(allowed.code).toBe(EXIT.noMatch);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
      await authed.stop();
    }
  });
});
