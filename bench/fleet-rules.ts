/**
 * `node bench/fleet-rules.ts [gpus] [hours]`: what Prometheus spends on one audit read through the recording rules,
 * through raw series, and on a plain `avg_over_time(DCGM_FI_DEV_GPU_UTIL[<window>])` over the same GPUs, side by
 * side on one Prometheus. A simulated cluster (8 GPUs a host, scenarios mixed, 30 s scrapes) is backfilled with
 * promtool, then the 1- and 5-minute aggregates of deploy/prometheus/saturate-rules.yml over it (`promtool tsdb
 * create-blocks-from rules`, the 5-minute ones in a second pass as they read the 1-minute ones; the per-GPU state
 * series are left out: the audit does not read them). Windows of about 9 h 20 min and up read the 5-minute ones; the
 * path column names the step read. Time is the wall time with a query in flight (the audit sends some in parallel),
 * the median of 3 after a warm-up of each.
 * `--queries` adds each query of one run (expression head, its own ms, samples read), the costliest first.
 * `KEEP_PROMETHEUS=1` keeps the backfilled Prometheus up instead (its address on stderr), to try queries by hand.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { audit } from '../server/fleet/audit.ts';
import { aggregateRulesYaml, fiveMinuteRulesYaml } from '../server/fleet/rules/recording-rules.ts';
import { GPUS_PER_HOST, writeClusterOpenMetrics, type SimHost } from '../test/fleet/cluster.ts';
import { backfillRulesInTurn, startPrometheus } from '../test/fleet/prometheus-harness.ts';
import { breakdownMarkdown, timedClient, type QueryCost } from './timed-client.ts';

const SCENARIOS = ['idle', 'small-kernels', 'memory-bound', 'compute-bound', 'data-starved', 'throttled'];
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;

export interface RulesBenchRow {
  gpus: number;
  windowS: number;
  /** Prometheus time, ms: the audit via the rules, via raw series, and the plain query. */
  rulesMs: number;
  rawMs: number;
  plainMs: number;
  /** Samples Prometheus read for each (its stats=all totalQueryableSamples). */
  rulesSamples: number;
  rawSamples: number;
  plainSamples: number;
  /** The path the rules audit reported (recording-rules, unless the rules failed to cover the window), and the step. */
  path: string;
  queriesRules: number;
  queriesRaw: number;
  /** Each query of one measured run (the first of 3): the rules audit, the raw audit, the plain query. */
  breakdown: { rules: QueryCost[]; raw: QueryCost[]; plain: QueryCost[] };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Measures one cluster size over one window. */
export async function benchRulesPath(gpus: number, windowS: number, log: (s: string) => void = console.error) {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-rules-bench-'));
  try {
    const hosts: SimHost[] = Array.from({ length: gpus / GPUS_PER_HOST }, (_, i) => ({
      hostname: `gpu-${String(i).padStart(4, '0')}`,
      phases: [{ fromMs: 0, scenario: SCENARIOS[i % SCENARIOS.length]! }],
      labels: { namespace: `team-${i % 7}`, pod: `job-${i}` },
    }));
    const t0 = performance.now();
    const file = join(dir, 'cluster.om');
    await writeClusterOpenMetrics(file, hosts, (END_S - windowS) * 1000, END_S * 1000, 30_000);
    const rules = join(dir, 'rules.yml');
    const coarse = join(dir, 'rules-5m.yml');
    writeFileSync(rules, aggregateRulesYaml());
    writeFileSync(coarse, fiveMinuteRulesYaml());
    // The 5-minute rules read the 1-minute ones: a second pass once those are in Prometheus.
    const prom = await backfillRulesInTurn(
      await startPrometheus({ openMetricsFile: file }),
      [rules, coarse],
      END_S - windowS,
      END_S + 60,
    );
    if (process.env['KEEP_PROMETHEUS']) {
      log(`Prometheus kept at ${prom.url} (KEEP_PROMETHEUS): Ctrl-C to stop`);
      await new Promise(() => undefined);
    }
    log(
      `rules bench ${gpus} GPUs, ${windowS / 3600} h: backfilled in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    try {
      const { client, take } = timedClient(prom.url);
      const opts = { windowS, endS: END_S, pricePerGpuHour: null };
      const samples: number[] = [];
      const perQuery: QueryCost[][] = [];
      const times = async (f: () => Promise<unknown>) => {
        await f();
        take();
        const out: number[] = [];
        for (let i = 0; i < 3; i++) {
          await f();
          const t = take();
          out.push(t.ms);
          if (i === 0) {
            samples.push(t.samples);
            perQuery.push(t.queries);
          }
        }
        return median(out);
      };
      let path = '';
      let queriesRules = 0;
      let queriesRaw = 0;
      const rulesMs = await times(async () => {
        const r = await audit(client, { ...opts, recordingRules: true });
        path = `${r.window.path}${r.window.rulesStepS ? `, ${r.window.rulesStepS / 60}-minute rules` : ''}`;
        queriesRules = r.queries;
      });
      const rawMs = await times(async () => {
        queriesRaw = (await audit(client, { ...opts, recordingRules: false })).queries;
      });
      const plainMs = await times(() => client.query(`avg_over_time(DCGM_FI_DEV_GPU_UTIL[${windowS}s])`, END_S));
      const [rulesSamples = 0, rawSamples = 0, plainSamples = 0] = samples;
      const row: RulesBenchRow = {
        gpus,
        windowS,
        rulesMs,
        rawMs,
        plainMs,
        rulesSamples,
        rawSamples,
        plainSamples,
        path,
        queriesRules,
        queriesRaw,
        breakdown: { rules: perQuery[0] ?? [], raw: perQuery[1] ?? [], plain: perQuery[2] ?? [] },
      };
      log(
        `rules bench ${gpus} GPUs: rules ${rulesMs.toFixed(0)} ms, raw ${rawMs.toFixed(0)} ms, plain ${plainMs.toFixed(0)} ms`,
      );
      return row;
    } finally {
      await prom.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows as a Markdown table with the ratios. */
export function rulesBenchMarkdown(rows: readonly RulesBenchRow[]): string {
  const x = (a: number, b: number) => (b ? `${(a / b).toFixed(1)}×` : '–');
  const m = (n: number) => `${(n / 1e6).toFixed(2)} M`;
  return [
    '| GPUs | window | audit via rules | audit via raw series | plain avg_over_time | time: rules ÷ plain, raw ÷ plain, raw ÷ rules | samples read: rules ÷ plain, raw ÷ plain, raw ÷ rules | path |',
    '|---:|---:|---:|---:|---:|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.gpus} | ${r.windowS / 3600} h | ${r.rulesMs.toFixed(0)} ms, ${r.queriesRules} queries, ${m(r.rulesSamples)} samples | ${r.rawMs.toFixed(0)} ms, ${r.queriesRaw} queries, ${m(r.rawSamples)} samples | ${r.plainMs.toFixed(0)} ms, ${m(r.plainSamples)} samples | ${x(r.rulesMs, r.plainMs)}, ${x(r.rawMs, r.plainMs)}, ${x(r.rawMs, r.rulesMs)} | ${x(r.rulesSamples, r.plainSamples)}, ${x(r.rawSamples, r.plainSamples)}, ${x(r.rawSamples, r.rulesSamples)} | ${r.path} |`,
    ),
  ].join('\n');
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const [gpus = 64, hours = 24] = args.filter((a) => !a.startsWith('--')).map(Number);
  const row = await benchRulesPath(gpus, hours * 3600);
  console.log(rulesBenchMarkdown([row]));
  // --queries: each query of one run, the costliest first (its own wall time; the audit's queries overlap).
  if (args.includes('--queries'))
    for (const [what, qs] of [
      ['audit via rules', row.breakdown.rules],
      ['audit via raw series', row.breakdown.raw],
      ['plain query', row.breakdown.plain],
    ] as const)
      console.log(`\n${breakdownMarkdown(what, qs)}`);
}
