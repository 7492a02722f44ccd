/**
 * `node bench/fleet.ts [sizes]`: the fleet audit at 64, 256 and 1,024 GPUs. Each size is a simulated
 * cluster (8 GPUs a host, scenarios mixed) backfilled into Debian's real Prometheus with promtool, then
 * audited over 1 h. Reports queries per refresh, time spent in Prometheus (wall time with a query in flight),
 * time spent in Saturate (the rest of the audit), bytes read from Prometheus and the size of the JSON report
 * (what a page would receive), and how each grows with the GPU count; then the /fleet/ page rendering that report
 * in Chromium (the built site, dist/; the page's performance marks from the /api/fleet response to the report in
 * the DOM, and to the next paint; median of 3 loads). Then the confusion matrix of the fleet verdicts against the
 * known causes, on a cluster of one host per scenario.
 */
import { chromium, type Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { audit } from '../server/fleet/audit.ts';
import { createPrometheusClient } from '../server/fleet/prometheus-api.ts';
import { collectFleet, newestFleet } from '../server/fleet/collect.ts';
import { toJson } from '../server/fleet/report.ts';
import {
  CLUSTER_CAUSES,
  GPUS_PER_HOST,
  scenarioCluster,
  writeClusterOpenMetrics,
  type SimHost,
} from '../test/fleet/cluster.ts';
import { startPrometheus } from '../test/fleet/prometheus-harness.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { startSite, type SiteServer } from '../test/e2e/site-server.ts';

const SCENARIOS = ['idle', 'small-kernels', 'memory-bound', 'compute-bound', 'data-starved', 'throttled'];
const END_MS = Date.UTC(2026, 10, 30, 12, 0, 0);
const HOUR = 3_600_000;

export interface FleetRow {
  gpus: number;
  queries: number;
  prometheusMs: number;
  saturateMs: number;
  bytesFromPrometheus: number;
  /** One refresh of the lab server's Prometheus source (newestFleet), best of 3: ms and bytes read. */
  refresh: { ms: number; bytes: number };
  /** The same refresh as a range of the last ten refreshes (150 s at 15 s), what it read before: ms and bytes. */
  rangeRefresh: { ms: number; bytes: number };
  reportBytes: number;
  backfillS: number;
  /** The page: /api/fleet response to the report in the DOM, ms (median of 3); null without a built site. */
  renderMs: number | null;
  /** The same to the next paint, ms. */
  paintMs: number | null;
}

/** A browser on the built site, to time the /fleet/ page; null when dist/ is not built. */
async function openFleetPage(
  log: (s: string) => void,
): Promise<{ page: Page; site: SiteServer; close(): Promise<void> } | null> {
  if (!existsSync('dist/fleet/index.html')) {
    log('fleet page render: skipped, no dist/ (run npx astro build first)');
    return null;
  }
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  return {
    page,
    site,
    async close() {
      await browser.close();
      await site.dispose();
    },
  };
}

const isFleetApi = (url: URL): boolean => url.pathname.endsWith('/api/fleet');

/**
 * Loads /fleet/ three times with `json` as the lab server's /api/fleet answer (the browser is handed the audit's
 * own JSON, so only the page is timed) and returns the median of the page's marks.
 */
async function timeRender(page: Page, origin: string, json: string): Promise<{ renderMs: number; paintMs: number }> {
  await page.route(isFleetApi, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: json }));
  const runs: { renderMs: number; paintMs: number }[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(`${origin}/fleet/?token=bench-token-0123456789`);
    await page.waitForFunction(() => performance.getEntriesByName('fleet:paint').length > 0, undefined, {
      timeout: 60_000,
    });
    runs.push(
      await page.evaluate(() => ({
        renderMs: performance.getEntriesByName('fleet:render')[0]!.duration,
        paintMs: performance.getEntriesByName('fleet:paint')[0]!.duration,
      })),
    );
  }
  await page.unroute(isFleetApi);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  return { renderMs: median(runs.map((r) => r.renderMs)), paintMs: median(runs.map((r) => r.paintMs)) };
}

export async function benchFleet(
  sizes: number[],
  log: (s: string) => void = console.error,
): Promise<{ rows: FleetRow[]; markdown: string }> {
  const rows: FleetRow[] = [];
  const browser = await openFleetPage(log);
  try {
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
          const client = createPrometheusClient({ url: prom.url, fetchImpl: timedFetch, timeoutMs: 300_000 });
          // One warm-up (Prometheus's caches), then the measured refresh.
          await audit(client, { windowS: 3600, endS: END_MS / 1000, pricePerGpuHour: null });
          prometheusMs = 0;
          bytes = 0;
          const s = performance.now();
          const report = await audit(client, { windowS: 3600, endS: END_MS / 1000, pricePerGpuHour: null });
          const totalMs = performance.now() - s;
          const auditBytes = bytes;
          const refresh = await bestOf3(
            () => newestFleet(client, { atS: END_MS / 1000 }),
            () => bytes,
          );
          const rangeRefresh = await bestOf3(
            () => collectFleet(client, { endS: END_MS / 1000, rangeS: 150, stepS: 15 }),
            () => bytes,
          );
          const json = JSON.stringify(toJson(report));
          const page = browser ? await timeRender(browser.page, browser.site.url, json) : null;
          rows.push({
            gpus: report.gpus.length,
            queries: report.queries,
            prometheusMs,
            saturateMs: totalMs - prometheusMs,
            bytesFromPrometheus: auditBytes,
            refresh,
            rangeRefresh,
            reportBytes: json.length,
            backfillS,
            renderMs: page?.renderMs ?? null,
            paintMs: page?.paintMs ?? null,
          });
          log(
            `fleet ${gpus} GPUs: ${report.queries} queries, ${(totalMs / 1000).toFixed(2)} s` +
              (page ? `; page ${page.renderMs.toFixed(0)} ms to the DOM, ${page.paintMs.toFixed(0)} ms to paint` : ''),
          );
        } finally {
          await prom.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await browser?.close();
  }
  const first = rows[0];
  const grow = (r: FleetRow, k: keyof FleetRow) => {
    const a = first?.[k];
    const b = r[k];
    return typeof a === 'number' && typeof b === 'number' && a ? `${(b / a).toFixed(1)}×` : '–';
  };
  const ms = (x: number | null) => (x === null ? '–' : `${x.toFixed(0)} ms`);
  const markdown = [
    '| GPUs | queries | Prometheus | Saturate | read from Prometheus | JSON report | page: to DOM / to paint | growth (Prometheus / Saturate / bytes / page) vs the smallest |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.gpus} | ${r.queries} | ${r.prometheusMs.toFixed(0)} ms | ${r.saturateMs.toFixed(0)} ms | ${(r.bytesFromPrometheus / 1024).toFixed(0)} KB | ${(r.reportBytes / 1024).toFixed(0)} KB | ${ms(r.renderMs)} / ${ms(r.paintMs)} | ${grow(r, 'prometheusMs')} / ${grow(r, 'saturateMs')} / ${grow(r, 'bytesFromPrometheus')} / ${grow(r, 'paintMs')} |`,
    ),
    '',
    "The lab server's refresh (`--source prometheus:`, every 15 s by default): the newest scrape alone (instant queries, collect.ts `newestFleet`) against the range of the last ten refreshes it read before (150 s at 15 s), best of 3 each.",
    '',
    '| GPUs | refresh: newest scrape | range of ten refreshes | ÷ (time / bytes) |',
    '|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.gpus} | ${ms(r.refresh.ms)}, ${(r.refresh.bytes / 1024).toFixed(0)} KB | ${ms(r.rangeRefresh.ms)}, ${(r.rangeRefresh.bytes / 1024).toFixed(0)} KB | ${(r.rangeRefresh.ms / r.refresh.ms).toFixed(1)}× / ${(r.rangeRefresh.bytes / r.refresh.bytes).toFixed(1)}× |`,
    ),
  ].join('\n');
  return { rows, markdown };
}

/** The least wall time of three runs of `run`, and the bytes `bytesRead` grew by in that run. */
async function bestOf3(run: () => Promise<unknown>, bytesRead: () => number): Promise<{ ms: number; bytes: number }> {
  let best = { ms: Infinity, bytes: 0 };
  for (let i = 0; i < 3; i++) {
    const [b0, t0] = [bytesRead(), performance.now()];
    await run();
    const ms = performance.now() - t0;
    if (ms < best.ms) best = { ms, bytes: bytesRead() - b0 };
  }
  return best;
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
