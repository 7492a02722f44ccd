/**
 * `node bench/fleet.ts [sizes]`: the fleet audit at 64, 256 and 1,024 GPUs. Each size is a simulated
 * cluster (8 GPUs a host, scenarios mixed) backfilled into Debian's real Prometheus with promtool, then
 * audited over 1 h. Reports queries per refresh, time spent in Prometheus (wall time with a query in flight),
 * time spent in Saturate (the rest of the audit), bytes read from Prometheus and the size of the JSON report
 * (what a page would receive), and how each grows with the GPU count. Then the confusion matrix of the fleet
 * verdicts against the known causes, on a cluster of one host per scenario.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { audit } from '../server/fleet/audit.ts';
import { createPrometheusClient } from '../server/fleet/prometheus-api.ts';
import { toJson } from '../server/fleet/report.ts';
import {
  CLUSTER_CAUSES,
  GPUS_PER_HOST,
  scenarioCluster,
  writeClusterOpenMetrics,
  type SimHost,
} from '../test/fleet/cluster.ts';
import { startPrometheus } from '../test/fleet/prometheus-harness.ts';

const SCENARIOS = ['idle', 'small-kernels', 'memory-bound', 'compute-bound', 'data-starved', 'throttled'];
const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOUR = 3_600_000;

export interface FleetRow {
  gpus: number;
  queries: number;
  prometheusMs: number;
  saturateMs: number;
  bytesFromPrometheus: number;
  reportBytes: number;
  backfillS: number;
}

export async function benchFleet(
  sizes: number[],
  log: (s: string) => void = console.error,
): Promise<{ rows: FleetRow[]; markdown: string }> {
  const rows: FleetRow[] = [];
  for (const gpus of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'saturate-fleet-bench-'));
    try {
      const hosts: SimHost[] = Array.from({ length: gpus / GPUS_PER_HOST }, (_, i) => ({
        hostname: `gpu-${String(i).padStart(4, '0')}`,
        phases: [{ fromMs: 0, scenario: SCENARIOS[i % SCENARIOS.length]! }],
        labels: { namespace: `team-${i % 7}`, pod: `job-${i}` },
      }));
      const t0 = performance.now();
      const file = join(dir, 'cluster.om');
      await writeClusterOpenMetrics(file, hosts, END_MS - HOUR, END_MS, 30_000);
      const prom = await startPrometheus({ openMetricsFile: file });
      const backfillS = (performance.now() - t0) / 1000;
      try {
        // Wall time with at least one query in flight: the audit sends some in parallel, so summing each
        // request's time would count the overlap twice.
        let prometheusMs = 0;
        let bytes = 0;
        let inFlight = 0;
        let since = 0;
        const timedFetch: typeof fetch = async (input, init) => {
          if (inFlight++ === 0) since = performance.now();
          try {
            const res = await fetch(input, init);
            const body = await res.arrayBuffer();
            bytes += body.byteLength;
            return new Response(body, { status: res.status, headers: res.headers });
          } finally {
            if (--inFlight === 0) prometheusMs += performance.now() - since;
          }
        };
        const client = createPrometheusClient({ url: prom.url, fetchImpl: timedFetch, timeoutMs: 120_000 });
        // One warm-up (Prometheus's caches), then the measured refresh.
        await audit(client, { windowS: 3600, endS: END_MS / 1000, pricePerGpuHour: null });
        prometheusMs = 0;
        bytes = 0;
        const s = performance.now();
        const report = await audit(client, { windowS: 3600, endS: END_MS / 1000, pricePerGpuHour: null });
        const totalMs = performance.now() - s;
        rows.push({
          gpus: report.gpus.length,
          queries: report.queries,
          prometheusMs,
          saturateMs: totalMs - prometheusMs,
          bytesFromPrometheus: bytes,
          reportBytes: JSON.stringify(toJson(report)).length,
          backfillS,
        });
        log(`fleet ${gpus} GPUs: ${report.queries} queries, ${(totalMs / 1000).toFixed(2)} s`);
      } finally {
        await prom.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const first = rows[0];
  const grow = (r: FleetRow, k: keyof FleetRow) => (first && first[k] ? `${(r[k] / first[k]).toFixed(1)}×` : '');
  const markdown = [
    '| GPUs | queries | Prometheus | Saturate | read from Prometheus | JSON report | growth (Prometheus / Saturate / bytes) vs the smallest |',
    '|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.gpus} | ${r.queries} | ${r.prometheusMs.toFixed(0)} ms | ${r.saturateMs.toFixed(0)} ms | ${(r.bytesFromPrometheus / 1024).toFixed(0)} KB | ${(r.reportBytes / 1024).toFixed(0)} KB | ${grow(r, 'prometheusMs')} / ${grow(r, 'saturateMs')} / ${grow(r, 'bytesFromPrometheus')} |`,
    ),
  ].join('\n');
  return { rows, markdown };
}

/** The verdict now of every GPU of a one-host-per-scenario cluster, against its cause, as a confusion matrix. */
export async function fleetConfusion(): Promise<{ right: number; total: number; markdown: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-fleet-matrix-'));
  try {
    const file = join(dir, 'cluster.om');
    await writeClusterOpenMetrics(file, scenarioCluster(), END_MS - HOUR, END_MS, 15_000);
    const prom = await startPrometheus({ openMetricsFile: file });
    try {
      const client = createPrometheusClient({ url: prom.url });
      const report = await audit(client, { windowS: 3600, endS: END_MS / 1000, pricePerGpuHour: null });
      const kinds = [...new Set<string>([...Object.values(CLUSTER_CAUSES), 'cant-tell'])];
      const cell = new Map<string, number>();
      let right = 0;
      for (const g of report.gpus) {
        const cause = CLUSTER_CAUSES[g.hostname.replace(/^sim-/, '')]!;
        const key = `${cause}|${g.verdict.kind}`;
        cell.set(key, (cell.get(key) ?? 0) + 1);
        if (g.verdict.kind === cause) right++;
      }
      const w = 11;
      const lines = [
        `fleet verdicts now: ${right} of ${report.gpus.length} right (one host of 8 GPUs per scenario, 15 s scrapes)`,
        ['cause \\ verdict'.padEnd(20), ...kinds.map((k) => k.slice(0, w - 1).padStart(w))].join(''),
        ...Object.values(CLUSTER_CAUSES).map((cause) =>
          [cause.padEnd(20), ...kinds.map((k) => String(cell.get(`${cause}|${k}`) ?? '.').padStart(w))].join(''),
        ),
      ];
      return { right, total: report.gpus.length, markdown: ['```', ...lines, '```'].join('\n') };
    } finally {
      await prom.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const { markdown } = await benchFleet(sizes.length ? sizes : [64, 256, 1024]);
  console.log(markdown);
  console.log(`\n${(await fleetConfusion()).markdown}`);
}
