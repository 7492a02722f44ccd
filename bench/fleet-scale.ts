/**
 * `node bench/fleet-scale.ts [--sizes=512,2048,10000] [--engines=prometheus,victoria-metrics] [--hours=24,6,1]`:
 * what the fleet audit costs against a plain query over the same GPUs, as the fleet grows. Each size is the
 * independent cluster (test/fleet/independent/) at that many GPUs, loaded into each engine; then, on the same
 * engine, the plain `avg_over_time(DCGM_FI_DEV_GPU_UTIL[<window>])` (the better of two runs) and one audit of the
 * same window. Printed per GPUs × engine: the window, the audit's and the plain query's wall seconds and the
 * engine's own CPU seconds for each (its `process_cpu_seconds_total`), their ratio, and whether the audit read
 * recording rules (none are loaded here: `bench/fleet-rules.ts` measures the audit through them).
 *
 * Windows: a day of 30 s scrapes for 2,048 and 10,000 GPUs is more than this 2-core machine writes and backfills
 * in a bench run, so each size takes its own window from `--hours` (default 24 h at 512, 2 h at 2,048, 1 h at
 * 10,000), and the table says which. VictoriaMetrics is Debian's `victoria-metrics` (test/fleet/victoria-metrics-harness.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit } from '../server/fleet/audit.ts';
import { createPrometheusClient } from '../server/fleet/prometheus-api.ts';
import { backfilledCluster, INDEPENDENT_END_S, SCRAPE_S } from '../test/fleet/independent/cluster.ts';
import { planCluster } from '../test/fleet/independent/plan.ts';
import { importIntoVictoriaMetrics } from '../test/fleet/independent/vm-import.ts';
import { patientFetch } from '../test/fleet/independent/patient-fetch.ts';
import { startPrometheus } from '../test/fleet/prometheus-harness.ts';
import { startVictoriaMetrics } from '../test/fleet/victoria-metrics-harness.ts';

export type Engine = 'prometheus' | 'victoria-metrics';

export interface ScaleRow {
  gpus: number;
  engine: Engine;
  windowH: number;
  /** Null when the engine was not run (`note` says why). */
  auditS: number | null;
  plainS: number | null;
  auditCpuS: number | null;
  plainCpuS: number | null;
  queries: number | null;
  recordingRules: boolean;
  note: string;
}

/** The engine's own CPU seconds so far (Prometheus and VictoriaMetrics both export process_cpu_seconds_total). */
async function engineCpuS(url: string): Promise<number | null> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = /^process_cpu_seconds_total(?:\{[^}]*\})? ([0-9.e+]+)$/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

interface Running {
  url: string;
  stop(): Promise<void>;
}

async function startEngine(engine: Engine, gpus: number, windowS: number, log: (s: string) => void): Promise<Running> {
  if (engine === 'prometheus') {
    const c = await backfilledCluster({ gpus, windowS }, log);
    return startPrometheus({ blocksDir: c.blocksDir, args: ['--query.timeout=20m'] });
  }
  const vm = await startVictoriaMetrics();
  const work = mkdtempSync(join(tmpdir(), 'saturate-scale-vm-'));
  try {
    const hosts = planCluster(gpus, windowS);
    const r = await importIntoVictoriaMetrics(
      vm.url,
      hosts,
      INDEPENDENT_END_S - windowS,
      INDEPENDENT_END_S,
      SCRAPE_S,
      work,
    );
    log(`victoria-metrics: ${(r.samples / 1e6).toFixed(1)} M samples imported in ${r.seconds.toFixed(0)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return vm;
}

/** One size on one engine: the plain query (best of two) and one audit, wall and engine CPU. */
async function measure(engine: Engine, gpus: number, windowH: number, log: (s: string) => void): Promise<ScaleRow> {
  const windowS = windowH * 3600;
  const row: ScaleRow = {
    gpus,
    engine,
    windowH,
    auditS: null,
    plainS: null,
    auditCpuS: null,
    plainCpuS: null,
    queries: null,
    recordingRules: false,
    note: '',
  };
  const e = await startEngine(engine, gpus, windowS, log);
  try {
    const client = createPrometheusClient({ url: e.url, timeoutMs: 1_200_000, fetchImpl: patientFetch });
    const plain = `avg_over_time(DCGM_FI_DEV_GPU_UTIL[${windowS}s])`;
    for (let i = 0; i < 2; i++) {
      const cpu0 = await engineCpuS(e.url);
      const t = performance.now();
      const got = await client.query(plain, INDEPENDENT_END_S);
      const s = (performance.now() - t) / 1000;
      const cpu1 = await engineCpuS(e.url);
      if (got.length !== gpus) log(`plain query: ${got.length} series for ${gpus} GPUs`);
      if (row.plainS === null || s < row.plainS) {
        row.plainS = s;
        row.plainCpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
      }
    }
    const cpu0 = await engineCpuS(e.url);
    const t = performance.now();
    const report = await audit(client, { windowS, endS: INDEPENDENT_END_S, pricePerGpuHour: null });
    row.auditS = (performance.now() - t) / 1000;
    const cpu1 = await engineCpuS(e.url);
    row.auditCpuS = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
    row.queries = report.queries;
    // An audit that read recording rules says so in its report (`window.path`); this bench loads none.
    row.recordingRules = report.window.path !== 'raw';
    if (report.gpus.length !== gpus) row.note = `${report.gpus.length} GPUs in the report`;
    log(`${engine} ${gpus} GPUs ${windowH} h: audit ${row.auditS.toFixed(1)} s, plain ${row.plainS!.toFixed(2)} s`);
  } finally {
    await e.stop();
  }
  return row;
}

const f1 = (x: number | null) => (x === null ? '–' : x.toFixed(x < 10 ? 2 : 1));
const ratio = (a: number | null, b: number | null) =>
  a === null || b === null || b <= 0 ? '–' : `${(a / b).toFixed(0)}×`;

export function scaleTable(rows: readonly ScaleRow[]): string {
  return [
    '| GPUs | engine | window | audit s | plain s | audit ÷ plain (wall) | engine CPU s: audit / plain | ÷ (CPU) | queries | recording rules | note |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.gpus.toLocaleString('en-US')} | ${r.engine} | ${r.windowH} h | ${f1(r.auditS)} | ${f1(r.plainS)} | ${ratio(r.auditS, r.plainS)} | ${f1(r.auditCpuS)} / ${f1(r.plainCpuS)} | ${ratio(r.auditCpuS, r.plainCpuS)} | ${r.queries ?? '–'} | ${r.recordingRules ? 'used' : 'not used'} | ${r.note} |`,
    ),
  ].join('\n');
}

const DEFAULT_HOURS: Record<number, number> = { 512: 24, 2048: 2, 10_000: 1 };

export async function benchScale(
  sizes: readonly number[],
  engines: readonly Engine[],
  hours: readonly number[] = [],
  log: (s: string) => void = console.error,
): Promise<{ rows: ScaleRow[]; markdown: string }> {
  const rows: ScaleRow[] = [];
  for (const [i, gpus] of sizes.entries())
    for (const engine of engines) rows.push(await measure(engine, gpus, hours[i] ?? DEFAULT_HOURS[gpus] ?? 1, log));
  const note =
    'Windows shorter than 24 h (2,048 and 10,000 GPUs by default) are what this 2-core machine writes and loads in a bench run, not a limit of the audit. Wall seconds on a shared, loaded machine (run niced): read the ratios.';
  return { rows, markdown: `${scaleTable(rows)}\n\n${note}` };
}

if (import.meta.main) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const nums = (s: string | undefined) => (s ? s.split(',').map(Number) : undefined);
  const sizes = nums(flag('sizes')) ?? [512, 2048, 10_000];
  const engines = (flag('engines')?.split(',') ?? ['prometheus', 'victoria-metrics']) as Engine[];
  const { markdown } = await benchScale(sizes, engines, nums(flag('hours')));
  console.log(markdown);
}
