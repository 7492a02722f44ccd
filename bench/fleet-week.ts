/**
 * `node bench/fleet-week.ts [--gpus=10000] [--days=7]`: issue #26's largest goal, the audit of 10,000 GPUs over 7
 * days through the recording rules, under the default timeouts: the audit's own per query (DEFAULT_QUERY_TIMEOUT_S)
 * and VictoriaMetrics' (`-search.maxQueryDuration`, 30 s by default), on Debian's `victoria-metrics`.
 *
 * A week of 10,000 GPUs at a 30 s scrape is some 4 billion samples, more than this 2-core machine writes in a bench
 * run, so the cluster (test/fleet/independent/, the same plan and scrapes) is written as the rules hold it
 * (rules-import.ts: each rule's point computed from the scrapes, the series the audit reads), plus the raw scrapes of
 * the last 7 minutes for the live view. What a platform team's engine holds beside those (a week of raw scrapes, the
 * rules the audit does not read) is not there: the audit does not read it, but a real engine's index is larger.
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
import { importThroughRules } from '../test/fleet/independent/rules-import.ts';
import { scoreReport } from '../test/fleet/independent/score.ts';
import { missesText, summaryText } from '../test/fleet/independent/format.ts';
import { startVictoriaMetrics } from '../test/fleet/victoria-metrics-harness.ts';
import { timedClient } from './timed-client.ts';

/** VictoriaMetrics' default `-search.maxQueryDuration`, s. */
const VM_QUERY_LIMIT_S = 30;

export interface WeekResult {
  gpus: number;
  days: number;
  markdown: string;
  /** The slowest query's seconds, and the audit's wall seconds. */
  slowestS: number;
  auditS: number;
}

export async function benchWeek(
  gpus = 10_000,
  days = 7,
  log: (s: string) => void = console.error,
): Promise<WeekResult> {
  const windowS = days * 86_400;
  const startS = INDEPENDENT_END_S - windowS;
  const hosts = planCluster(gpus, windowS);
  const work = mkdtempSync(join(tmpdir(), 'saturate-week-'));
  const vm = await startVictoriaMetrics({ args: ['-search.disableCache'] });
  try {
    const rules = await importThroughRules(vm.url, hosts, startS, INDEPENDENT_END_S, SCRAPE_S, work);
    log(
      `fleet-week: ${(rules.samples / 1e6).toFixed(0)} M rule and ${(rules.rawSamples / 1e6).toFixed(1)} M raw samples in ${rules.seconds.toFixed(0)} s (drawing ${rules.generateS.toFixed(0)} s)`,
    );

    const timed = timedClient(vm.url, fetch, DEFAULT_QUERY_TIMEOUT_S * 1000);
    const a = performance.now();
    const report = await audit(timed.client, { windowS, endS: INDEPENDENT_END_S, pricePerGpuHour: null });
    const auditS = (performance.now() - a) / 1000;
    const { ms, queries } = timed.take();
    const slowest = queries.reduce((x, q) => (q.ms > x.ms ? q : x));
    const score = scoreReport(report, hosts, windowS);
    const w = report.window;
    const markdown = [
      `| GPUs | window | written (rules + raw tail) | audit wall s | s with a query in flight | queries | slowest query s | its share of the audit's limit (${DEFAULT_QUERY_TIMEOUT_S} s) / VictoriaMetrics' (${VM_QUERY_LIMIT_S} s) | path |`,
      '|---:|---:|---|---:|---:|---:|---:|---|---|',
      `| ${gpus.toLocaleString('en-US')} | ${days} d | ${(rules.samples / 1e6).toFixed(0)} M + ${(rules.rawSamples / 1e6).toFixed(1)} M samples in ${rules.seconds.toFixed(0)} s | ${auditS.toFixed(1)} | ${(ms / 1000).toFixed(1)} | ${report.queries} | ${(slowest.ms / 1000).toFixed(2)} | ${((100 * slowest.ms) / 1000 / DEFAULT_QUERY_TIMEOUT_S).toFixed(0)}% / ${((100 * slowest.ms) / 1000 / VM_QUERY_LIMIT_S).toFixed(0)}% | ${w.path}${w.rulesStepS ? ` (${w.rulesStepS / 60} min)` : ''} |`,
      '',
      `Slowest query: \`${slowest.head.replace(/`/g, "'")}\`.`,
      '',
      '```',
      summaryText(score),
      '```',
      '',
      'Verdicts now that were wrong:',
      missesText(score),
    ].join('\n');
    return { gpus, days, markdown, slowestS: slowest.ms / 1000, auditS };
  } finally {
    await vm.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const flag = (n: string) => process.argv.find((a) => a.startsWith(`--${n}=`))?.slice(n.length + 3);
  const r = await benchWeek(Number(flag('gpus') ?? 10_000), Number(flag('days') ?? 7));
  console.log(r.markdown);
}
