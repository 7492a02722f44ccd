/** The report as JSON (the CLI's `--json`) and as plain text (the CLI's default). Pure. */
import type { TraceReport } from './analyze.ts';
import type { RankReport } from './report-types.ts';

const f1 = (x: number) => (Math.round(x * 10) / 10).toFixed(1);
const ms = (us: number) => `${f1(us / 1000)} ms`;
const pct = (ratio: number) => `${f1(100 * ratio)}%`;

/**
 * The JSON shape: `verdict`, then per-rank lists `temporal`, `idle` and `steps`, then `ranks` with the rest
 * of each rank's report, the comparison across ranks and warnings. Every time is in µs.
 */
export function reportJson(r: TraceReport): Record<string, unknown> {
  const rk = (x: RankReport) => x.rank;
  return {
    verdict: r.verdict,
    temporal: r.ranks.map((x) => ({ rank: rk(x), ...x.temporal })),
    idle: r.ranks.map((x) => ({ rank: rk(x), totals: x.idle.totals, streams: x.idle.streams })),
    steps: r.ranks.map((x) => ({ rank: rk(x), steps: x.steps })),
    ranks: r.ranks.map((x) => ({
      rank: rk(x),
      file: x.label,
      platform: x.platform,
      notes: x.notes,
      meta: x.meta,
      kernels: x.kernels,
      launch: x.launch,
      hostWait: x.host,
    })),
    across: r.across,
    warnings: r.warnings,
  };
}

/** A plain-text report for a terminal or a CI log. */
export function reportText(r: TraceReport): string {
  const v = r.verdict;
  const lines = [
    `Verdict: ${v.title} (${v.kind}, ${v.confidence} confidence)`,
    ...v.evidence.map((e) => `  - ${e}`),
    `Change: ${v.next}`,
    ...(v.decide ? [`To decide: ${v.decide}`] : []),
    `Cards: ${v.cardIds.join(', ')}`,
    '',
  ];
  for (const x of r.ranks) {
    const t = x.temporal;
    const h = x.host;
    lines.push(
      `Rank ${x.rank ?? '-'} (${x.label}, ${x.platform}${x.meta.deviceNames[0] ? `, ${x.meta.deviceNames[0]}` : ''})`,
      `  temporal: idle ${f1(t.idlePct)}%, compute ${f1(t.computePct)}%, non-compute ${f1(t.nonComputePct)}% of ${ms(t.spanUs)}`,
      `  idle by cause (all streams): host wait ${pct(x.idle.totals.host_wait.ratio)}, kernel wait ${pct(x.idle.totals.kernel_wait.ratio)}, other ${pct(x.idle.totals.other.ratio)}`,
      ...x.idle.streams.map(
        (s) =>
          `    stream ${s.stream}: ${ms(s.idleUs)} idle; host ${pct(s.byCategory.host_wait.ratio)}, kernel ${pct(s.byCategory.kernel_wait.ratio)}, other ${pct(s.byCategory.other.ratio)}`,
      ),
      `  host wait ${ms(h.hostWaitUs)}: syncs ${ms(h.byCause.sync)}, DataLoader ${ms(h.byCause.dataLoader)}, optimizer ${ms(h.byCause.optimizer)}, Python/dispatch ${ms(h.byCause.overhead)}`,
      `  kernels: ${x.kernels.byType.map((k) => `${k.label} ${f1(k.pct)}%`).join(', ')}${
        x.kernels.commOverlapPct === null ? '' : `; comm overlapped ${f1(x.kernels.commOverlapPct)}%`
      }`,
      ...x.kernels.top.slice(0, 5).map((k) => `    ${ms(k.sumUs)} ×${k.count} ${k.name.slice(0, 90)}`),
      ...(x.launch
        ? [
            `  launches: ${x.launch.launches}, delay median ${f1(x.launch.delayMedianUs)} µs (p95 ${f1(x.launch.delayP95Us)}), ${pct(x.launch.under10UsShare)} of kernels under 10 µs`,
          ]
        : []),
      ...(x.steps.length
        ? [`  steps: ${x.steps.map((s) => `#${s.step} ${ms(s.durUs)} (GPU idle ${f1(s.gpuIdlePct)}%)`).join(', ')}`]
        : []),
      ...x.notes.map((n) => `  note: ${n}`),
      '',
    );
  }
  if (r.across)
    lines.push(
      `Across ranks: rank ${r.across.slowestRank} computes ${f1(100 * (r.across.slowestByRatio - 1))}% longer than the median`,
      ...r.across.perRank.map((p) => `  rank ${p.rank}: NCCL ${ms(p.ncclUs)} (${f1(p.ncclPct)}% of its span)`),
      '',
    );
  lines.push(...r.warnings.map((w) => `Warning: ${w}`));
  return `${lines.join('\n').trimEnd()}\n`;
}
