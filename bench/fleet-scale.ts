/**
 * `node bench/fleet-scale.ts [--sizes=512,2048,10000] [--engines=prometheus,victoria-metrics] [--hours=24,6,2]
 * [--no-raw]`: what the fleet audit costs against a plain query over the same GPUs, as the fleet grows, through the
 * recording rules and through raw series. Each size is the independent cluster (test/fleet/independent/) at that
 * many GPUs, loaded into each engine, then the audit's recording rules (deploy/prometheus/, the 1- and 5-minute
 * aggregates the audit reads) written over it as a platform team would over history it already holds: `promtool tsdb
 * create-blocks-from rules` for Prometheus (the 5-minute group in a second pass), vmalert's replay mode for
 * VictoriaMetrics. Then, on the same engine: the plain `avg_over_time(DCGM_FI_DEV_GPU_UTIL[<window>])` (the better
 * of two runs), the audit through the rules (the better of two after one that warms the engine), the same with the engine's answers uncompressed
 * (`--no-gzip`, the plain query's too) and one from raw series only (`recordingRules: false`; `--no-raw` skips it). Printed per GPUs × engine: the window, each one's wall seconds and the engine's own CPU seconds (its
 * `process_cpu_seconds_total`), the ratios to the plain query, and the path the rules audit reported.
 *
 * Windows: a day of 30 s scrapes for 2,048 and 10,000 GPUs is more than this 2-core machine writes and loads in a
 * bench run (the 512-GPU day alone is 26 M samples and 4–13 minutes of writing and promtool), so each size takes its
 * own window from `--hours` (default 24 h at 512, 6 h at 2,048, 2 h at 10,000), and the table says which. The rules
 * are read for windows of about 2 h and up (segments of 4 minutes or more), the 5-minute ones from about 9 h 20 min.
 * VictoriaMetrics is Debian's `victoria-metrics` with its `vmalert` (test/fleet/victoria-metrics-harness.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit, type AuditReport } from '../server/fleet/audit.ts';
import { aggregateRulesYaml, fiveMinuteRulesYaml } from '../server/fleet/rules/recording-rules.ts';
import { terminalEnds } from '../server/fleet/plain-text.ts';
import { backfilledCluster, INDEPENDENT_END_S, SCRAPE_S } from '../test/fleet/independent/cluster.ts';
import { planCluster } from '../test/fleet/independent/plan.ts';
import { importIntoVictoriaMetrics } from '../test/fleet/independent/vm-import.ts';
import { patientFetch } from '../test/fleet/independent/patient-fetch.ts';
import { backfillRulesInTurn, startPrometheus } from '../test/fleet/prometheus-harness.ts';
import { flushUntilAllHeld, startVictoriaMetrics } from '../test/fleet/victoria-metrics-harness.ts';
import { timedClient } from './timed-client.ts';

export type Engine = 'prometheus' | 'victoria-metrics';

/** One audit's cost: seconds with a query in flight (the engine's part), wall seconds (with ours), engine CPU. */
export interface AuditCost {
  busyS: number;
  s: number;
  cpuS: number | null;
  queries: number;
  /** Samples the engine read (Prometheus's stats; 0 where the engine gives none). */
  samples: number;
  /** Series in the answers, all queries together. */
  series: number;
}

export interface ScaleRow {
  gpus: number;
  engine: Engine;
  windowH: number;
  /** Null when not run (`note` says why). */
  plainS: number | null;
  plainCpuS: number | null;
  plainSamples: number;
  /** The plain query's CPU with its answer uncompressed (`--no-gzip`). */
  plainCpuNoGzipS: number | null;
  /** The audit through the recording rules, the same with uncompressed answers (`--no-gzip`), and from raw series only. */
  rules: AuditCost | null;
  rulesNoGzip: AuditCost | null;
  raw: AuditCost | null;
  /** The path the rules audit reported (`recording-rules`, `mixed` or `raw`) and the rules' step it read, s. */
  path: string;
  /** Seconds spent writing the rules over the window (promtool or vmalert). */
  rulesBackfillS: number | null;
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
  /** Seconds spent writing the recording rules over the window. */
  rulesBackfillS: number;
}

/** The 1-minute then the 5-minute aggregates, as two rules files in `dir` (the second reads the first). */
function rulesFiles(dir: string): string[] {
  const files = [join(dir, 'rules-1m.yml'), join(dir, 'rules-5m.yml')];
  writeFileSync(files[0]!, aggregateRulesYaml());
  writeFileSync(files[1]!, fiveMinuteRulesYaml());
  return files;
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

/**
 * vmalert's replay of `files` over [startS, endS] into VictoriaMetrics (test/fleet/vmalert-rules.test.ts's flags).
 * vmalert queues each query's answer whole for remote write (100,000 points by default): at 10,000 GPUs one rule's
 * answer over its default 1,000 points a series is ~30 series a GPU × 1,000, far more, and the replay ends "queue is
 * full". So the points a query asks for shrink as the fleet grows, and the queue holds what one query returns.
 */
function replayRules(url: string, files: readonly string[], startS: number, endS: number, gpus: number): void {
  const seriesPerGpu = 30;
  const queue = 2_000_000;
  const pointsPerQuery = Math.max(2, Math.min(1000, Math.floor((0.75 * queue) / (gpus * seriesPerGpu))));
  const r = spawnSync(
    'vmalert',
    [
      '-loggerLevel=ERROR',
      ...files.map((f) => `-rule=${f}`),
      `-datasource.url=${url}`,
      `-remoteWrite.url=${url}`,
      `-replay.timeFrom=${iso(startS)}`,
      `-replay.timeTo=${iso(endS)}`,
      '-replay.disableProgressBar',
      '-datasource.queryStep=0s',
      '-remoteWrite.flushInterval=200ms',
      '-replay.rulesDelay=2s',
      `-replay.maxDatapointsPerQuery=${pointsPerQuery}`,
      `-remoteWrite.maxQueueSize=${queue}`,
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) throw new Error(`vmalert could not replay the rules: ${(r.stderr || r.stdout).slice(-2000)}`);
}

async function startEngine(engine: Engine, gpus: number, windowS: number, log: (s: string) => void): Promise<Running> {
  const startS = INDEPENDENT_END_S - windowS;
  const work = mkdtempSync(join(tmpdir(), 'saturate-scale-'));
  try {
    const files = rulesFiles(work);
    if (engine === 'prometheus') {
      const c = await backfilledCluster({ gpus, windowS }, log);
      const t = performance.now();
      const prom = await backfillRulesInTurn(
        await startPrometheus({ blocksDir: c.blocksDir }),
        files,
        startS,
        INDEPENDENT_END_S + 60,
      );
      return { ...prom, rulesBackfillS: (performance.now() - t) / 1000 };
    }
    // Its rollup cache would answer a repeated query from memory (the bench keeps the better of two runs): the
    // engine's own work is what is compared, as on Prometheus, which has no such cache.
    const vm = await startVictoriaMetrics({ args: ['-search.disableCache'] });
    const r = await importIntoVictoriaMetrics(
      vm.url,
      planCluster(gpus, windowS),
      startS,
      INDEPENDENT_END_S,
      SCRAPE_S,
      work,
    );
    log(`victoria-metrics: ${(r.samples / 1e6).toFixed(1)} M samples imported in ${r.seconds.toFixed(0)} s`);
    const t = performance.now();
    replayRules(vm.url, files, startS, INDEPENDENT_END_S + 60, gpus);
    // Every point the import and the replay wrote searchable before the first query (one flush is not always enough).
    await flushUntilAllHeld(vm.url, {
      minMs: (startS - 3600) * 1000,
      maxMs: (INDEPENDENT_END_S + 3600) * 1000,
      what: 'the replay',
    });
    return { ...vm, rulesBackfillS: (performance.now() - t) / 1000 };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The engine's CPU seconds as of now. VictoriaMetrics answers `/metrics` with process figures read up to a second
 * before (60 plain queries, 1.07 s of its CPU, showed at once; 5 of them, ~85 ms, did not show at all), so there the
 * figure is read again until it moves: a new one was read after this call began. Prometheus reads its own at each
 * scrape of `/metrics`.
 */
async function cpuNow(url: string, engine: Engine): Promise<number | null> {
  const first = await engineCpuS(url);
  if (engine !== 'victoria-metrics' || first === null) return first;
  const deadline = performance.now() + 3000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await engineCpuS(url);
    if (now !== first || performance.now() > deadline) return now;
  }
}

/** Runs `fn` and returns its wall seconds and the engine's CPU seconds meanwhile. */
async function timed<T>(
  url: string,
  engine: Engine,
  fn: () => Promise<T>,
): Promise<{ value: T; s: number; cpuS: number | null }> {
  const cpu0 = await cpuNow(url, engine);
  const t = performance.now();
  const value = await fn();
  const s = (performance.now() - t) / 1000;
  const cpu1 = await cpuNow(url, engine);
  return { value, s, cpuS: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null };
}

/**
 * The engine's CPU seconds per run of `fn`, over runs for at least `minS` seconds (two at least): one plain query is
 * under the figure's 10 ms resolution on VictoriaMetrics (~17 ms of CPU at 512 GPUs), which left its ratio unmeasured.
 */
async function cpuPerRun(url: string, engine: Engine, fn: () => Promise<unknown>, minS = 3): Promise<number | null> {
  const cpu0 = await cpuNow(url, engine);
  const t = performance.now();
  let runs = 0;
  while (runs < 2 || performance.now() - t < minS * 1000) {
    await fn();
    runs++;
  }
  const cpu1 = await cpuNow(url, engine);
  return cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / runs : null;
}

/**
 * Waits until the engine is idle: under 50 ms of its CPU in a second (up to `maxS`). A freshly filled engine works on
 * by itself for a while (Prometheus compacts the blocks promtool wrote, VictoriaMetrics merges the parts an import
 * made), and that work would be counted as the audit's.
 */
async function settle(url: string, engine: Engine, log: (s: string) => void, maxS = 180): Promise<void> {
  const t = performance.now();
  for (;;) {
    const c0 = await cpuNow(url, engine);
    await new Promise((r) => setTimeout(r, 1000));
    const c1 = await cpuNow(url, engine);
    if (c0 === null || c1 === null || c1 - c0 < 0.05) return;
    if (performance.now() - t > maxS * 1000) {
      log(
        `${engine} still busy after ${maxS} s (${((c1 - c0) * 1000).toFixed(0)} ms of CPU a second): measured anyway`,
      );
      return;
    }
  }
}

type Timed = ReturnType<typeof timedClient>;

/**
 * The audit through the rules, three times: the first warms the engine's caches for what it reads; of the other two
 * the one with less time in flight is kept, with the engine CPU of both averaged (one run's figure moves with
 * whatever else the engine did meanwhile).
 */
async function rulesCost(t: Timed, url: string, engine: Engine, windowS: number) {
  await auditCost(t, url, engine, windowS, true);
  const a = await auditCost(t, url, engine, windowS, true);
  const b = await auditCost(t, url, engine, windowS, true);
  const best = b.cost.busyS < a.cost.busyS ? b : a;
  const cpuS = a.cost.cpuS !== null && b.cost.cpuS !== null ? (a.cost.cpuS + b.cost.cpuS) / 2 : null;
  return { cost: { ...best.cost, cpuS }, report: best.report };
}

/** One audit, through the rules or not; its cost and report. */
async function auditCost(
  t: Timed,
  url: string,
  engine: Engine,
  windowS: number,
  recordingRules: boolean,
): Promise<{ cost: AuditCost; report: AuditReport }> {
  t.take();
  const r = await timed(url, engine, () =>
    audit(t.client, { windowS, endS: INDEPENDENT_END_S, pricePerGpuHour: null, recordingRules }),
  );
  const k = t.take();
  return {
    cost: { busyS: k.ms / 1000, s: r.s, cpuS: r.cpuS, queries: r.value.queries, samples: k.samples, series: k.series },
    report: r.value,
  };
}

/** A row with nothing measured yet, or nothing at all (`note` says why). */
const emptyRow = (gpus: number, engine: Engine, windowH: number, note: string): ScaleRow => ({
  gpus,
  engine,
  windowH,
  plainS: null,
  plainCpuS: null,
  plainSamples: 0,
  plainCpuNoGzipS: null,
  rules: null,
  rulesNoGzip: null,
  raw: null,
  path: '',
  rulesBackfillS: null,
  note,
});

/** An error for a table cell: its start and its end, where an engine's or vmalert's reason is. */
const noteOf = (err: unknown): string => terminalEnds(err instanceof Error ? err.message : String(err), 80, 200);

/** One size on one engine: the plain query (best of two), one audit through the rules and one from raw series. */
async function measure(
  engine: Engine,
  gpus: number,
  windowH: number,
  withRaw: boolean,
  log: (s: string) => void,
): Promise<ScaleRow> {
  const windowS = windowH * 3600;
  const row = emptyRow(gpus, engine, windowH, '');
  const e = await startEngine(engine, gpus, windowS, log);
  row.rulesBackfillS = e.rulesBackfillS;
  try {
    await settle(e.url, engine, log);
    const t = timedClient(e.url, patientFetch, 1_200_000);
    const plain = `avg_over_time(DCGM_FI_DEV_GPU_UTIL[${windowS}s])`;
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const r = await t.client.query(plain, INDEPENDENT_END_S);
      const s = (performance.now() - t0) / 1000;
      row.plainSamples = t.take().samples;
      if (r.length !== gpus) log(`plain query: ${r.length} series for ${gpus} GPUs`);
      if (row.plainS === null || s < row.plainS) row.plainS = s;
    }
    row.plainCpuS = await cpuPerRun(e.url, engine, () => t.client.query(plain, INDEPENDENT_END_S));
    t.take();
    const viaRules = await rulesCost(t, e.url, engine, windowS);
    row.rules = viaRules.cost;
    const w = viaRules.report.window;
    row.path = `${w.path}${w.rulesStepS ? ` (${w.rulesStepS / 60} min)` : ''}`;
    if (viaRules.report.gpus.length !== gpus) row.note = `${viaRules.report.gpus.length} GPUs in the report`;
    // The same with the answers uncompressed (`--no-gzip`): the plain query's too, so both sides skip compressing.
    const tz = timedClient(e.url, patientFetch, 1_200_000, false);
    row.plainCpuNoGzipS = await cpuPerRun(e.url, engine, () => tz.client.query(plain, INDEPENDENT_END_S));
    tz.take();
    row.rulesNoGzip = (await rulesCost(tz, e.url, engine, windowS)).cost;
    // The engines run at their default limits (Prometheus 2 min a query, VictoriaMetrics 30 s): a raw audit that
    // one ends is a row of its own, with the rules audit's numbers kept.
    if (withRaw)
      try {
        row.raw = (await auditCost(t, e.url, engine, windowS, false)).cost;
      } catch (err) {
        row.note = `raw audit: ${noteOf(err)}`;
        log(`${engine} ${gpus} GPUs: raw audit failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    log(
      `${engine} ${gpus} GPUs ${windowH} h: rules audit ${row.rules.busyS.toFixed(2)} s in flight, ${row.rules.s.toFixed(2)} s wall (${row.path}), ` +
        `raw ${row.raw ? `${row.raw.busyS.toFixed(1)} s` : 'not run'}, plain ${row.plainS!.toFixed(3)} s`,
    );
  } finally {
    await e.stop();
  }
  return row;
}

const f1 = (x: number | null | undefined) =>
  x === null || x === undefined ? '–' : x.toFixed(x < 1 ? 3 : x < 10 ? 2 : 1);
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined || b <= 0 ? '–' : `${(a / b).toFixed(1)}×`;

export function scaleTable(rows: readonly ScaleRow[]): string {
  const m = (x: number) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)} M` : `${(x / 1e3).toFixed(0)} k`);
  return [
    '| GPUs | engine | window | plain s | audit via rules: engine s (wall s) | ÷ plain, engine | ÷ plain, engine CPU | --no-gzip: ÷ plain, engine / CPU | series read ÷ GPUs | samples ÷ plain | path | audit raw: engine s | ÷ plain | queries rules / raw | rules written in | note |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.gpus.toLocaleString('en-US')} | ${r.engine} | ${r.windowH} h | ${f1(r.plainS)} | ${f1(r.rules?.busyS)} (${f1(r.rules?.s)}) | ${ratio(r.rules?.busyS, r.plainS)} | ${ratio(r.rules?.cpuS, r.plainCpuS)} | ${ratio(r.rulesNoGzip?.busyS, r.plainS)} / ${ratio(r.rulesNoGzip?.cpuS, r.plainCpuNoGzipS)} | ${r.rules ? (r.rules.series / r.gpus).toFixed(1) : '–'} | ${r.rules?.samples && r.plainSamples ? `${m(r.rules.samples)} ÷ ${m(r.plainSamples)}` : '–'} | ${r.path} | ${f1(r.raw?.busyS)} | ${ratio(r.raw?.busyS, r.plainS)} | ${r.rules?.queries ?? '–'} / ${r.raw?.queries ?? '–'} | ${r.rulesBackfillS === null ? '–' : `${r.rulesBackfillS.toFixed(0)} s`} | ${r.note} |`,
    ),
  ].join('\n');
}

const DEFAULT_HOURS: Record<number, number> = { 512: 24, 2048: 6, 10_000: 2 };

export async function benchScale(
  sizes: readonly number[],
  engines: readonly Engine[],
  hours: readonly number[] = [],
  log: (s: string) => void = console.error,
  withRaw = true,
): Promise<{ rows: ScaleRow[]; markdown: string }> {
  const rows: ScaleRow[] = [];
  for (const [i, gpus] of sizes.entries())
    for (const engine of engines) {
      const windowH = hours[i] ?? DEFAULT_HOURS[gpus] ?? 2;
      try {
        rows.push(await measure(engine, gpus, windowH, withRaw, log));
      } catch (e) {
        // One size or engine failing (out of memory, a missing vmalert) leaves the others' rows.
        log(`${engine} ${gpus} GPUs: ${e instanceof Error ? e.message : String(e)}`);
        rows.push(emptyRow(gpus, engine, windowH, `failed: ${noteOf(e)}`));
      }
    }
  const note =
    "Engine s: seconds with at least one of the audit's queries in flight (what the engine spends; the audit sends some in parallel); wall s adds the audit's own work on the answers. " +
    "Windows shorter than 24 h (2,048 and 10,000 GPUs by default) are what this 2-core machine writes and loads in a bench run, not a limit of the audit. Wall seconds on a shared machine: read the ratios, each measured side by side on one engine. Engine CPU is its process_cpu_seconds_total (10 ms resolution): the plain query's is the mean over its runs for 3 s, the audit's over two runs (after one that warms the engine), each measured once the engine is idle. " +
    "--no-gzip: the same audit and plain query with their answers uncompressed (the engine skips compressing them). Series read ÷ GPUs: the series in the rules audit's answers per GPU; the plain query reads one a GPU, and VictoriaMetrics' cost is about 20 µs a series read whatever its points, so this is the least its ratio can be.";
  return { rows, markdown: `${scaleTable(rows)}\n\n${note}` };
}

if (import.meta.main) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const nums = (s: string | undefined) => (s ? s.split(',').map(Number) : undefined);
  const sizes = nums(flag('sizes')) ?? [512, 2048, 10_000];
  const engines = (flag('engines')?.split(',') ?? ['prometheus', 'victoria-metrics']) as Engine[];
  const { markdown } = await benchScale(
    sizes,
    engines,
    nums(flag('hours')),
    console.error,
    !process.argv.includes('--no-raw'),
  );
  console.log(markdown);
}
