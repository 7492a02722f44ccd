/**
 * The fleet waste audit: for every GPU that matches the selector, its verdict now (the diagnosis engine on
 * the last minutes at scrape resolution) and how many GPU-hours of the window it spent in each state, with
 * what those hours cost. Built on `collectFleet` (live view) and on per-segment averages for the window, both judged
 * per job by `verdictsOf` (jobs.ts) with the same owners.
 *
 * Resolution: a window is cut into at most `MAX_SEGMENTS` segments that cover it whole (segments.ts) and each
 * segment is judged from its averages and its GPU-Util spread (steady.ts: a steady job gets the verdict it gets
 * now), so a state shorter than a segment is blended into its neighbours (1 h → 2 min 9 s segments, 24 h → ~51 min,
 * 7 d → 6 h). The live verdict reads every scrape of the last `liveS` seconds.
 */
import type { BottleneckKind } from '../../src/lib/diagnose/index.ts';
import { WASTE_STATES } from '../../src/lib/fleet-view.ts';
import {
  collectFleet,
  DIAGNOSED_NAMES,
  gpuKeyOf,
  gpuMatch,
  nodeNamesAt,
  selectorMatchers,
  type FleetGpu,
  type FleetHost,
} from './collect.ts';
import type { PrometheusClient } from './prometheus-api.ts';
import { costOf, type CostSummary } from './cost.ts';
import { readEnergyIncrease } from './readings.ts';
import { steadyWindow } from './steady.ts';
import { scrapeStepS } from './scrape-step.ts';
import { jobOf, verdictsOf } from './jobs.ts';
import { targetBatches, type OnBatch } from './batches.ts';
import { MAX_SEGMENTS, segmentHours, segmentPlan, type SegmentPlan } from './segments.ts';
import { windowSegments, type PathTaken } from './rules/rules-path.ts';
import { rulesDataSpanS, windowCoverage } from './rules/coverage.ts';
import { badReading, noData, pickVerdict, type AuditVerdict } from './verdicts.ts';

export { badReading, verdictsOf };

export { MAX_SEGMENTS };

/** Points across the window at which the oldest sample is looked for (its resolution: 24 h → 6 min, 1 h → 15 s). */
export const DATA_SPAN_POINTS = 240;

/** The states that count as waste (src/lib/fleet-view.ts, which the fleet page shares). */
export const WASTE_KINDS: readonly BottleneckKind[] = WASTE_STATES;

export interface AuditOptions {
  windowS: number;
  /** The end of the window, unix seconds. */
  endS: number;
  selector?: string | undefined;
  /** US dollars per GPU-hour for every GPU; null: each model's default (src/lib/gpu-prices.ts), where it has one. */
  pricePerGpuHour: number | null;
  /** Seconds of raw scrapes the live verdict reads (default 300). */
  liveS?: number;
  /**
   * Seconds between those scrapes (default 15): the finest step the live view reads at. Where dcgm-exporter is
   * scraped less often, it reads at the scrape interval instead, each scrape once (scrape-step.ts).
   */
  liveStepS?: number;
  /** Called after each batch of hosts is read (batches.ts): the CLI's progress lines. */
  onBatch?: OnBatch;
  /** False: read the window from raw series even where the recording rules cover it (default true). */
  recordingRules?: boolean;
}

export interface GpuAudit extends FleetGpu {
  verdict: AuditVerdict;
  /** GPU-hours of the window in each state. */
  hours: Partial<Record<BottleneckKind, number>>;
  /** GPU-hours the GPU reported at all in the window. */
  reportedHours: number;
  /** Energy over the window, kWh (from where: the summary's `energyFrom`); null when its reading is not exported. */
  energyKWh: number | null;
  /** The price its hours are costed at (given, else its model's default), US $/GPU-hour; null: unpriced. */
  pricePerGpuHour: number | null;
}

export interface AuditReport {
  /** `liveS`: the seconds of scrapes the verdict now reads (each GPU's hours cover the whole window). */
  window: { startS: number; endS: number; seconds: number; segmentS: number; liveS: number } & PathTaken;
  /**
   * Seconds of the window Prometheus holds GPU samples for (from the oldest one it has in the window to the end),
   * to within DATA_SPAN_POINTS of the window (0 with a single scrape), or, where the recording rules cover the window's
   * oldest segment, to within one of their intervals (from their points, rules/coverage.ts); null when it has none. A Prometheus that started scraping 2 minutes
   * ago says ~120 here for any window, so a page can say so and pick a window the data fills.
   */
  dataSpanS: number | null;
  prometheus: string;
  /** HTTP queries this audit made. */
  queries: number;
  gpus: GpuAudit[];
  summary: {
    gpus: number;
    gpuHours: number;
    byKind: Partial<Record<BottleneckKind, number>>;
    /** GPU-hours in any of WASTE_KINDS. */
    wastefulHours: number;
    energyKWh: number | null;
    /** Where the energy came from (EnergySource); null when no GPU has any. */
    energyFrom: EnergySource | null;
  } & CostSummary;
}

/**
 * Where the energy came from: `counter`, the increase of DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION over the window (raw
 * series); `power`, when the recording rules cover the whole window, each segment's mean DCGM_FI_DEV_POWER_USAGE
 * (from the rules' 1- or 5-minute means) times the hours it stands for: no raw query, the same energy within 1% on
 * the simulated cluster (test/fleet/rules-path.test.ts), known for a GPU that exports power but not the counter.
 */
export type EnergySource = 'counter' | 'power';

/**
 * Seconds of the window Prometheus holds GPU samples for, from raw series: at each step the newest sample's own
 * timestamp, and the least of those (AuditReport.dataSpanS). One query that reads every scrape of the window.
 */
async function rawDataSpanS(
  client: PrometheusClient,
  sel: string,
  windowS: number,
  endS: number,
  stepS: number,
): Promise<number | null> {
  const oldest = await client.query(
    // Subquery steps align to multiples of the step: samples newer than the last one are read at the end itself.
    `min(min_over_time(timestamp(DCGM_FI_DEV_GPU_UTIL{${sel}})[${windowS}s:${stepS}s]))` +
      ` or min(timestamp(DCGM_FI_DEV_GPU_UTIL{${sel}}))`,
    endS,
  );
  const oldestS = oldest[0]?.value;
  return oldestS === undefined || !Number.isFinite(oldestS) ? null : Math.max(0, Math.min(windowS, endS - oldestS));
}

/** Runs the audit against Prometheus. */
export async function audit(client: PrometheusClient, opts: AuditOptions): Promise<AuditReport> {
  const before = client.requests;
  const liveS = opts.liveS ?? 300;
  const liveStepS = opts.liveStepS ?? 15;
  const plan = segmentPlan(opts.windowS, liveStepS);
  const segmentS = plan.segmentMs / 1000;
  const startS = opts.endS - opts.windowS;
  const nodeNames = nodeNamesAt(client, opts.endS); // one query for the live view and the segments
  const spanStepS = Math.max(liveStepS, Math.ceil(opts.windowS / DATA_SPAN_POINTS));
  const sel = selectorMatchers(opts.selector);
  // The hosts, listed once over the whole window (GPUs gone now included), read in batches by both reads.
  const batches = targetBatches(client, gpuMatch(opts.selector), startS, opts.endS);
  // What the recording rules hold for the window: where they hold all of it, energy and the data span come from them.
  const coverage = windowCoverage(client, sel, plan, opts.endS, opts.recordingRules ?? true);
  const energyFrom = coverage.then((c): EnergySource => (c.covered.every(Boolean) ? 'power' : 'counter'));
  const [live, windowRead, energy, dataSpanS] = await Promise.all([
    scrapeStepS(client, sel, opts.endS, liveS, liveStepS).then((stepS) =>
      collectFleet(client, {
        selector: opts.selector,
        endS: opts.endS,
        rangeS: liveS,
        stepS,
        names: DIAGNOSED_NAMES,
        nodeNames,
        batches,
        onBatch: opts.onBatch,
      }),
    ),
    // The recording rules where they cover the window, raw series for the rest (rules/rules-path.ts).
    windowSegments(client, {
      selector: opts.selector,
      endS: opts.endS,
      plan,
      scrapeS: liveStepS,
      nodeNames,
      batches,
      onBatch: opts.onBatch,
      coverage,
    }),
    energyFrom.then((from) =>
      from === 'power'
        ? []
        : client.query(`increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${sel}}[${opts.windowS}s])`, opts.endS),
    ),
    coverage.then(
      (c) =>
        rulesDataSpanS(plan, c.points, c.covered, c.level.intervalS, opts.windowS) ??
        rawDataSpanS(client, sel, opts.windowS, opts.endS, spanStepS),
    ),
  ]);
  const energyOf = new Map<string, number>();
  for (const s of energy) {
    const r = readEnergyIncrease(s.value, opts.windowS); // a NaN or a sentinel leaves that GPU's energy unknown
    if (r.value !== null) energyOf.set(gpuKeyOf(s.labels), r.value);
  }
  const byKey = new Map<string, GpuAudit>();
  for (const h of live) {
    const verdicts = verdictsOf(h.messages, liveS, h.gpus.map(jobOf));
    h.gpus.forEach((g, i) => {
      const v = verdicts[i];
      const bad = h.corrupt.findLast((m) => m.has(i))?.get(i);
      byKey.set(g.key, {
        ...g,
        verdict: bad ? badReading(bad) : v ? pickVerdict(v, h.messages, i) : noData('no scrape in the last minutes'),
        hours: {},
        reportedHours: 0,
        energyKWh: energyOf.has(g.key) ? energyOf.get(g.key)! / 3.6e9 : null,
        pricePerGpuHour: null,
      });
    });
  }
  const fromPower = (await energyFrom) === 'power';
  for (const run of windowRead.runs)
    for (const h of run.hosts) accumulate(h, run.plan, run.endS, byKey, energyOf, fromPower);
  const gpus = [...byKey.values()].sort((a, b) => a.hostname.localeCompare(b.hostname) || a.gpu - b.gpu);
  const cost = costOf(gpus, opts.pricePerGpuHour);
  gpus.forEach((g, i) => (g.pricePerGpuHour = cost.perGpu[i] ?? null));
  const byKind: Partial<Record<BottleneckKind, number>> = {};
  for (const g of gpus)
    for (const [k, v] of Object.entries(g.hours)) byKind[k as BottleneckKind] = (byKind[k as BottleneckKind] ?? 0) + v;
  const wastefulHours = WASTE_KINDS.reduce((a, k) => a + (byKind[k] ?? 0), 0);
  const energies = gpus.map((g) => g.energyKWh).filter((e): e is number => e !== null);
  return {
    window: { startS, endS: opts.endS, seconds: opts.windowS, segmentS, liveS, ...windowRead.taken },
    dataSpanS: dataSpanS === null ? null : Math.round(dataSpanS),
    prometheus: client.where,
    queries: client.requests - before,
    gpus,
    summary: {
      gpus: gpus.length,
      gpuHours: gpus.reduce((a, g) => a + g.reportedHours, 0),
      byKind,
      wastefulHours,
      ...cost.summary,
      energyKWh: energies.length ? energies.reduce((a, b) => a + b, 0) : null,
      energyFrom: energies.length ? await energyFrom : null,
    },
  };
}

/** Adds each segment's state to its GPU's hours; GPUs seen only in the window (gone now) join the report. */
function accumulate(
  h: FleetHost,
  plan: SegmentPlan,
  endS: number,
  byKey: Map<string, GpuAudit>,
  energyOf: Map<string, number>,
  fromPower: boolean,
): void {
  const segmentS = plan.segmentMs / 1000;
  h.messages.forEach((m, mi) => {
    const hours = segmentHours(plan, endS, m.sampledAtMs);
    const steady = steadyWindow(m, segmentS, h.reasonShares?.[mi], h.utilSpreads?.[mi]);
    const verdicts = verdictsOf(steady, segmentS, h.gpus.map(jobOf));
    m.gpus.forEach((s, i) => {
      if (s.error !== null) return;
      const g = h.gpus[s.index]!;
      let a = byKey.get(g.key);
      if (!a) {
        a = {
          ...g,
          verdict: noData('reported earlier in the window, not in the last minutes'),
          hours: {},
          reportedHours: 0,
          energyKWh: energyOf.has(g.key) ? energyOf.get(g.key)! / 3.6e9 : null,
          pricePerGpuHour: null,
        };
        byKey.set(g.key, a);
      }
      const kind = h.corrupt[mi]?.has(i) ? 'cant-tell' : (verdicts[i]?.kind ?? 'cant-tell');
      a.hours[kind] = (a.hours[kind] ?? 0) + hours;
      a.reportedHours += hours;
      // W × h / 1000 = kWh: the segment's mean power over the hours it stands for.
      if (fromPower && s.powerWatts !== null) a.energyKWh = (a.energyKWh ?? 0) + (s.powerWatts * hours) / 1000;
    });
  });
}
