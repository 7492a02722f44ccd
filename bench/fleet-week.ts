/**
 * `node bench/fleet-week.ts [--gpus=10000] [--days=7] [--engines=victoria-metrics,prometheus]`: issue #26's largest
 * goal, the audit of 10,000 GPUs over 7 days through the recording rules, under the default timeouts: the audit's own
 * per query (DEFAULT_QUERY_TIMEOUT_S) and the engine's (VictoriaMetrics' `-search.maxQueryDuration`, 30 s; Prometheus's
 * `--query.timeout`, 2 min), on Debian's `victoria-metrics` and `prometheus`, one after the other.
 *
 * A week of 10,000 GPUs at a 30 s scrape is some 4 billion samples, more than this 2-core machine writes in a bench
 * run, so the cluster (test/fleet/independent/, the same plan and scrapes) is written as the rules hold it
 * (rules-import.ts: each rule's point computed from the scrapes, the series the audit reads), plus the raw scrapes of
 * the last 7 minutes for the live view: imported into VictoriaMetrics, sent to Prometheus through its remote-write
 * receiver in time order (rules-remote-write.ts; promtool would backfill some 130 GB of OpenMetrics text here). What
 * a platform team's engine holds beside those (a week of raw scrapes, the rules the audit does not read) is not
 * there: the audit does not read it, but a real engine's index is larger.
 *
 * Printed: what was written and how long it took, the audit's wall seconds and seconds with a query in flight, its
 * slowest query against both timeouts, the path it reported, and its verdicts and hours against the truth
 * (score.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit } from '../server/fleet/audit.ts';
import { DEFAULT_QUERY_TIMEOUT_S } from '../server/fleet/query-timeout.ts';
import { INDEPENDENT_END_S, SCRAPE_S } from '../test/fleet/independent/cluster.ts';
import { planCluster } from '../test/fleet/independent/plan.ts';
import { scoreReport } from '../test/fleet/independent/score.ts';
import { missesText, summaryText } from '../test/fleet/independent/format.ts';
import { engineThroughRules } from '../test/fleet/independent/rules-remote-write.ts';
import { FLEET_ENGINES, fleetEngine, type FleetEngine } from '../test/fleet/prometheus-harness.ts';
import { timedClient } from './timed-client.ts';

/** Each engine's own default limit on a query, s: VictoriaMetrics' `-search.maxQueryDuration`, Prometheus's `--query.timeout`. */
const ENGINE_QUERY_LIMIT_S: Record<FleetEngine, number> = { 'victoria-metrics': 30, prometheus: 120 };

export interface WeekRun {
  engine: FleetEngine;
  /** The slowest query's seconds, and the audit's wall seconds. */
  slowestS: number;
  auditS: number;
}

export interface WeekResult {
  gpus: number;
  days: number;
  markdown: string;
  runs: WeekRun[];
}

export async function benchWeek(
  gpus = 10_000,
  days = 7,
  log: (s: string) => void = console.error,
  engines: readonly FleetEngine[] = FLEET_ENGINES,
): Promise<WeekResult> {
  const windowS = days * 86_400;
  const startS = INDEPENDENT_END_S - windowS;
  const hosts = planCluster(gpus, windowS);
  const rows: string[] = [];
  const details: string[] = [];
  const runs: WeekRun[] = [];
  for (const engine of engines) {
    const work = mkdtempSync(join(tmpdir(), 'saturate-week-'));
    const filled = await engineThroughRules(engine, hosts, startS, INDEPENDENT_END_S, SCRAPE_S, work, log);
    try {
      log(
        `fleet-week: ${engine}: ${(filled.samples / 1e6).toFixed(0)} M rule and ${(filled.rawSamples / 1e6).toFixed(1)} M raw samples in ${filled.seconds.toFixed(0)} s (drawing ${filled.generateS.toFixed(0)} s)`,
      );
      const timed = timedClient(filled.running.url, fetch, DEFAULT_QUERY_TIMEOUT_S * 1000);
      const a = performance.now();
      const report = await audit(timed.client, { windowS, endS: INDEPENDENT_END_S, pricePerGpuHour: null });
      const auditS = (performance.now() - a) / 1000;
      const { ms, queries } = timed.take();
      const slowest = queries.reduce((x, q) => (q.ms > x.ms ? q : x));
      const score = scoreReport(report, hosts, windowS);
      const w = report.window;
      const limit = ENGINE_QUERY_LIMIT_S[engine];
      rows.push(
        `| ${gpus.toLocaleString('en-US')} | ${engine} | ${days} d | ${(filled.samples / 1e6).toFixed(0)} M + ${(filled.rawSamples / 1e6).toFixed(1)} M samples in ${filled.seconds.toFixed(0)} s | ${auditS.toFixed(1)} | ${(ms / 1000).toFixed(1)} | ${report.queries} | ${(slowest.ms / 1000).toFixed(2)} | ${((100 * slowest.ms) / 1000 / DEFAULT_QUERY_TIMEOUT_S).toFixed(0)}% / ${((100 * slowest.ms) / 1000 / limit).toFixed(0)}% of ${limit} s | ${w.path}${w.rulesStepS ? ` (${w.rulesStepS / 60} min)` : ''} |`,
      );
      details.push(
        `**${engine}.** Slowest query: \`${slowest.head.replace(/`/g, "'")}\`.`,
        '',
        '```',
        summaryText(score),
        '```',
        '',
        'Verdicts now that were wrong:',
        missesText(score),
        '',
      );
      runs.push({ engine, slowestS: slowest.ms / 1000, auditS });
    } finally {
      await filled.running.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }
  const markdown = [
    `| GPUs | engine | window | written (rules + raw tail) | audit wall s | s with a query in flight | queries | slowest query s | its share of the audit's limit (${DEFAULT_QUERY_TIMEOUT_S} s) / the engine's | path |`,
    '|---:|---|---:|---|---:|---:|---:|---:|---|---|',
    ...rows,
    '',
    ...details,
  ].join('\n');
  return { gpus, days, markdown, runs };
}

if (import.meta.main) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const engines = (flag('engines')?.split(',') ?? FLEET_ENGINES).map((e) => fleetEngine({ FLEET_ENGINE: e }));
  const r = await benchWeek(Number(flag('gpus') ?? 10_000), Number(flag('days') ?? 7), console.error, engines);
  console.log(r.markdown);
}
