/**
 * The hosts beside the GPUs, from node-exporter: CPU busy share (all cores and the busiest), load and memory, keyed by the host name
 * node-exporter reports (`node_uname_info`). The CPU query is read in batches of node-exporter targets (batches.ts),
 * as the GPUs are: it reads every core's series (a host of 128 cores has 128) and answers two a host.
 */
import type { HostSample } from '../../src/protocol/metrics.ts';
import type { PrometheusClient, RangeSeries } from './prometheus-api.ts';
import { readHostValue } from './readings.ts';
import { readInBatches, targetBatches, withBatch, type Batch } from './batches.ts';

/** node-exporter's host name per instance (`node_uname_info`) at `atS`: one query. */
export async function nodeNamesAt(client: PrometheusClient, atS: number): Promise<Map<string, string>> {
  const series = await client.query('node_uname_info', atS);
  return new Map(series.map((s) => [s.labels['instance'] ?? '', s.labels['nodename'] ?? '']));
}

/**
 * The label that names what one of Saturate's own series carries: a recording rule's gauge (rules/names.ts), or a
 * host's CPU read back here.
 */
export const SERIES_LABEL = 'saturate_series';

/** The `saturate_series` labels a host's busiest core and its all-core mean are read under (the rules path's too). */
export const NODE_MAX_CORE = 'node:max-core';
export const NODE_MEAN = 'node:mean';

/**
 * Each host's CPU (its busiest core's and its cores' mean busy share over `rateWindowS`), load and memory from
 * node-exporter, keyed by the host name node-exporter reports (`node_uname_info`, asked for at `endS` unless
 * `nodeNames` is given), at the points of a range: one query per batch of node-exporter targets (listed first) for
 * the CPU and, in the same answer (`or`), the batch's load and memory; host names one more unless `nodeNames` is given.
 *
 * The engine reads a host's CPU as those two numbers (src/lib/diagnose/stats.ts `cpuPct`, `maxCorePct`), so the
 * engine's own `max by` and `avg by` over the per-core rates answer two series a host, not one a core (a host of 128
 * cores sent 128): the same readings, a smaller answer to write and parse.
 */
export async function hostSamplesOver(
  client: PrometheusClient,
  startS: number,
  endS: number,
  stepS: number,
  rateWindowS: number,
  nodeNames?: Promise<Map<string, string>>,
): Promise<Map<string, (HostSample | null)[]>> {
  const range = (expr: string) => client.queryRange(expr, startS, endS, stepS);
  const idle = 'node_cpu_seconds_total{mode="idle"}';
  // In ms: a step that divides a window is not always whole seconds, and PromQL takes no fractional `…s`.
  const rateWindow = `${Math.max(1, Math.round(rateWindowS * 1000))}ms`;
  const busy = (b: Batch) => `(1 - rate(node_cpu_seconds_total{${withBatch('mode="idle"', b)}}[${rateWindow}]))`;
  const [series, nodeOf] = await Promise.all([
    targetBatches(client, idle, startS, endS).then((bs) =>
      readInBatches(
        bs,
        (b) =>
          range(
            `${labelled(`max by (instance) ${busy(b)}`, NODE_MAX_CORE)} or ${labelled(`avg by (instance) ${busy(b)}`, NODE_MEAN)}` +
              ` or {${withBatch(`__name__=~"${HOST_GAUGES.join('|')}"`, b)}}`,
          ),
        'host CPU',
      ),
    ),
    nodeNames ?? nodeNamesAt(client, endS),
  ]);
  // The gauges by their names; the CPU by its label.
  const [cpu, gauges] = splitBy(series, (s) => s.labels[SERIES_LABEL] !== undefined);
  const [cpuMean, maxCore] = splitBy(cpu, (s) => s.labels[SERIES_LABEL] === NODE_MEAN);
  return buildHostSamples(maxCore, gauges, nodeOf, timeline(startS, endS, stepS), cpuMean);
}

/** `expr` with `saturate_series="<name>"` added (the CPU series of a host read back by it). */
export const labelled = (expr: string, name: string): string =>
  `label_replace(${expr}, "${SERIES_LABEL}", "${name}", "", "")`;

/** `xs` split in two: those `yes` holds for, and the others. */
export function splitBy<T>(xs: readonly T[], yes: (x: T) => boolean): [T[], T[]] {
  const a: T[] = [];
  const b: T[] = [];
  for (const x of xs) (yes(x) ? a : b).push(x);
  return [a, b];
}

export const HOST_GAUGES = [
  'node_load1',
  'node_load5',
  'node_load15',
  'node_memory_MemTotal_bytes',
  'node_memory_MemAvailable_bytes',
];

/**
 * Host samples at `times` from per-core busy shares (`cpu`, 0–1, one series per core or per host) and the gauges.
 * `cpuMean` (per instance, 0–1), where given, is the hosts' all-core mean; else the mean of `cpu`'s series.
 */
export function buildHostSamples(
  cpu: RangeSeries[],
  host: RangeSeries[],
  nodeOf: Map<string, string>,
  times: number[],
  cpuMean: RangeSeries[] = [],
): Map<string, (HostSample | null)[]> {
  const byHost = new Map<
    string,
    { cores: Map<number, number>[]; gauges: Map<string, Map<number, number>>; mean?: Map<number, number> }
  >();
  const entry = (instance: string) => {
    const name = nodeOf.get(instance) || instance.replace(/:\d+$/, '');
    let e = byHost.get(name);
    if (!e) byHost.set(name, (e = { cores: [], gauges: new Map() }));
    return e;
  };
  const hostPoints = (s: RangeSeries) =>
    new Map(
      [...pointMap(s)].filter(([, v]) => readHostValue(s.labels['__name__'] ?? 'node-exporter', v).value !== null),
    );
  for (const s of cpu) entry(s.labels['instance'] ?? '').cores.push(hostPoints(s));
  for (const s of host) entry(s.labels['instance'] ?? '').gauges.set(s.labels['__name__'] ?? '', hostPoints(s));
  for (const s of cpuMean) entry(s.labels['instance'] ?? '').mean = hostPoints(s);
  const out = new Map<string, (HostSample | null)[]>();
  for (const [name, e] of byHost) {
    out.set(
      name,
      times.map((t) => {
        const perCore = e.cores.map((c) => c.get(t)).filter((v): v is number => v !== undefined);
        const g = (n: string) => e.gauges.get(n)?.get(t);
        const total = g('node_memory_MemTotal_bytes');
        const avail = g('node_memory_MemAvailable_bytes');
        if (!perCore.length || total === undefined || avail === undefined) return null;
        const pct = perCore.map((v) => Math.min(100, Math.max(0, v * 100)));
        const mean = e.mean?.get(t);
        return {
          cpuPct:
            mean === undefined ? pct.reduce((a, b) => a + b, 0) / pct.length : Math.min(100, Math.max(0, mean * 100)),
          perCorePct: pct,
          load: { avg1: g('node_load1') ?? 0, avg5: g('node_load5') ?? 0, avg15: g('node_load15') ?? 0 },
          mem: { totalBytes: total, usedBytes: Math.max(0, total - avail), availableBytes: avail },
        };
      }),
    );
  }
  return out;
}

/** The points of a range query, from start to end every step (Prometheus aligns them the same way). */
export function timeline(startS: number, endS: number, stepS: number): number[] {
  // In whole ms, as Prometheus counts: a step such as 128.571 s summed in floats overshoots the end at 1.8e9 s.
  const [startMs, endMs, stepMs] = [startS, endS, stepS].map((x) => Math.round(x * 1000)) as [number, number, number];
  const out: number[] = [];
  for (let t = startMs; t <= endMs; t += Math.max(1, stepMs)) out.push(t / 1000);
  return out;
}

/** A series' points by time (s, to the ms). */
export const pointMap = (s: RangeSeries) => new Map(s.points.map(([t, v]) => [Math.round(t * 1000) / 1000, v]));
