/**
 * The fleet page's arithmetic, pure: GPUs grouped by host, namespace or model, each group's GPU-hours per state,
 * and the groups and GPUs ordered by wasteful hours. The page fetches the audit JSON (`/api/fleet`) and renders
 * what this returns.
 */

/** One GPU as `/api/fleet` (and `npm run audit -- --json`) sends it. */
export interface FleetGpuJson {
  instance: string;
  hostname: string;
  gpu: number;
  uuid: string | null;
  model: string;
  labels: { pod: string | null; namespace: string | null; container: string | null; job: string | null };
  /** Its series carry `simulated="true"`: a simulated GPU (a lab server's `--dcgm-names`), not hardware. */
  simulated?: boolean;
  verdict: {
    kind: string;
    title: string;
    confidence: string;
    evidence: string[];
    next: string;
    cardId: string;
    decide?: string;
  };
  hours: Record<string, number>;
  wastefulHours: number;
  energyKWh: number | null;
}

export type GroupBy = 'host' | 'namespace' | 'model';

/** Each diagnosis kind as a fleet state, in words (the page, the Markdown report). */
export const STATE_NAMES: Record<string, string> = {
  idle: 'Idle (nothing held)',
  'idle-allocated': 'Idle but allocated',
  'data-starvation': 'Starved of input data',
  'small-kernels': 'Busy in time, not in space',
  throttled: 'Throttled',
  'communication-hang': 'Hung in a collective',
  straggler: 'Waiting for a straggler',
  'memory-bound': 'Memory-bound (working)',
  'compute-bound': 'Compute-bound (working)',
  'cant-tell': "Can't tell",
};

/** The states that count as waste, in the order a report lists them. */
export const WASTE_STATES = [
  'idle',
  'idle-allocated',
  'data-starvation',
  'small-kernels',
  'throttled',
  'communication-hang',
  'straggler',
] as const;

export interface FleetGroup {
  name: string;
  gpus: FleetGpuJson[];
  wastefulHours: number;
  reportedHours: number;
}

/** The group a GPU belongs to; GPUs without a namespace or job group under "(no owner label)". */
export function groupOf(g: FleetGpuJson, by: GroupBy): string {
  if (by === 'host') return g.hostname;
  if (by === 'model') return g.model;
  return g.labels.namespace ?? (g.labels.job ? `job ${g.labels.job}` : '(no owner label)');
}

const sumHours = (g: FleetGpuJson) => Object.values(g.hours).reduce((a, b) => a + b, 0);

/**
 * Groups, most wasteful first (ties by name); within a group, GPUs most wasteful first.
 *
 * @example groupFleet([], 'host') // []
 */
export function groupFleet(gpus: readonly FleetGpuJson[], by: GroupBy): FleetGroup[] {
  const groups = new Map<string, FleetGpuJson[]>();
  for (const g of gpus) {
    const k = groupOf(g, by);
    groups.set(k, [...(groups.get(k) ?? []), g]);
  }
  return [...groups]
    .map(([name, list]) => ({
      name,
      gpus: [...list].sort(
        (a, b) => b.wastefulHours - a.wastefulHours || a.hostname.localeCompare(b.hostname) || a.gpu - b.gpu,
      ),
      wastefulHours: list.reduce((a, g) => a + g.wastefulHours, 0),
      reportedHours: list.reduce((a, g) => a + sumHours(g), 0),
    }))
    .sort((a, b) => b.wastefulHours - a.wastefulHours || a.name.localeCompare(b.name));
}

/** The state a GPU spent most of the window in, or null when it reported nothing. */
export function mainState(g: Pick<FleetGpuJson, 'hours'>): string | null {
  let best: string | null = null;
  for (const [k, v] of Object.entries(g.hours)) if (v > 0 && (best === null || v > g.hours[best]!)) best = k;
  return best;
}

/**
 * How far back the verdict now reads, in words. @example lastWords(300) // "the last 5 minutes"
 * @example lastWords(null) // "now"
 */
export function lastWords(liveS: number | null): string {
  if (liveS === null) return 'now';
  if (liveS === 60) return 'the last minute';
  if (liveS >= 120 && liveS % 60 === 0) return `the last ${liveS / 60} minutes`;
  return `the last ${liveS} s`;
}

/**
 * A GPU's state over the window beside its verdict now, in one phrase: "mostly X" where they agree (a job that did
 * not change); where they differ, both, with why: the hours are the whole window, the verdict only its last
 * minutes (`liveS` seconds, the report's `window.liveS`), so the job changed within the window.
 *
 * @example nowAndWindowText({ verdict: { kind: 'idle' }, hours: { idle: 1 } }, 300) // "mostly Idle (nothing held)"
 * @example nowAndWindowText({ verdict: { kind: 'data-starvation' }, hours: { 'idle-allocated': 0.8, 'data-starvation': 0.2 } }, 60) // "Idle but allocated for most of the window (80% of its hours); Starved of input data in the last minute: it changed within the window"
 */
export function nowAndWindowText(
  g: Pick<FleetGpuJson, 'hours'> & { verdict: { kind: string } },
  liveS: number | null,
): string {
  const main = mainState(g);
  if (main === null) return '';
  const name = (k: string) => STATE_NAMES[k] ?? k;
  if (main === g.verdict.kind) return `mostly ${name(main)}`;
  const all = Object.values(g.hours).reduce((a, b) => a + b, 0);
  const share = Math.round((100 * (g.hours[main] ?? 0)) / all);
  // "Can't tell" now is no change of the job: the verdict's own evidence says what the last minutes lack.
  const why = g.verdict.kind === 'cant-tell' ? '' : ': it changed within the window';
  return `${name(main)} for most of the window (${share}% of its hours); ${name(g.verdict.kind)} in ${lastWords(liveS)}${why}`;
}

/** "$1,234" for a cost, or "" without a price. @example formatUsd(1234.4) // "$1,234" */
export function formatUsd(x: number | null): string {
  return x === null ? '' : `$${Math.round(x).toLocaleString('en-US')}`;
}

/** What a fleet's wasteful hours cost at a price per model (null: that model is unpriced). */
export interface FleetCost {
  /** Sum over priced GPUs; null when no GPU has a price. */
  totalUsd: number | null;
  /** Per wasteful state. */
  byKindUsd: Record<string, number>;
  /** Wasteful GPU-hours of GPUs whose model has no price. */
  unpricedHours: number;
}

/**
 * Each GPU's wasteful hours at its model's price, summed.
 *
 * @example costOfFleet([], () => 2).totalUsd // null
 */
export function costOfFleet(gpus: readonly FleetGpuJson[], priceOf: (model: string) => number | null): FleetCost {
  const byKindUsd: Record<string, number> = {};
  let unpricedHours = 0;
  let priced = false;
  for (const g of gpus) {
    const p = priceOf(g.model);
    if (p !== null) priced = true;
    for (const k of WASTE_STATES) {
      const h = g.hours[k] ?? 0;
      if (!h) continue;
      if (p === null) unpricedHours += h;
      else byKindUsd[k] = (byKindUsd[k] ?? 0) + h * p;
    }
  }
  const total = Object.values(byKindUsd).reduce((a, b) => a + b, 0);
  return { totalUsd: priced ? total : null, byKindUsd, unpricedHours };
}

/** The lab whose console charts show a verdict's evidence: a fleet GPU opens there, live. */
export const LAB_FOR_KIND: Record<string, string> = {
  idle: 'idle-gpu-cost',
  'idle-allocated': 'idle-gpu-cost',
  'data-starvation': 'data-loader-starvation',
  'small-kernels': 'busy-in-time',
  'memory-bound': 'memory-vs-compute',
  'compute-bound': 'memory-vs-compute',
  throttled: 'throttling',
  // GPU-Util against SM activity shows a hang (100% util, ~1% SM) and a straggler's waiting ranks.
  'communication-hang': 'busy-in-time',
  straggler: 'busy-in-time',
  'cant-tell': 'busy-in-time',
};

/** How the lab server with `--source prometheus:` names a fleet GPU as a device (server/fleet/source.ts). */
export const fleetDeviceName = (g: Pick<FleetGpuJson, 'model' | 'hostname' | 'gpu'>): string =>
  `${g.model} (${g.hostname}, GPU ${g.gpu})`;

/**
 * The site path of a GPU's live view: the lab console for its verdict, told which device to show (`?gpu=`, matched
 * against the lab server's device names), opened at its charts. The server itself is the one the page remembers.
 *
 * @example liveViewPath({ model: 'H100', hostname: 'n1', gpu: 3, verdict: { kind: 'idle' } }) // "/labs/idle-gpu-cost/?gpu=H100%20(n1%2C%20GPU%203)#lab-charts"
 */
export function liveViewPath(
  g: Pick<FleetGpuJson, 'model' | 'hostname' | 'gpu'> & { verdict: { kind: string } },
): string {
  const lab = LAB_FOR_KIND[g.verdict.kind] ?? 'busy-in-time';
  return `/labs/${lab}/?gpu=${encodeURIComponent(fleetDeviceName(g))}#${LIVE_VIEW_ANCHOR}`;
}

/**
 * How much data Prometheus holds, in words, from the report's `dataSpanS`.
 * @example dataSpanText(120) // "Prometheus has 2 minutes of data"
 * @example dataSpanText(null) // "Prometheus has no GPU data in this window yet"
 */
export function dataSpanText(spanS: number | null): string {
  if (spanS === null) return 'Prometheus has no GPU data in this window yet';
  if (spanS < 60) return 'Prometheus has under a minute of data';
  if (spanS < 90 * 60) return `Prometheus has ${Math.round(spanS / 60)} minutes of data`;
  if (spanS < 36 * 3600) return `Prometheus has ${Math.round(spanS / 3600)} hours of data`;
  return `Prometheus has ${Math.round(spanS / 86_400)} days of data`;
}

/**
 * The window to show instead of `windowS` when the data fills too little of it (under a quarter): the shortest of
 * `offered` (seconds, by value) that holds all of it, else the longest shorter one (which the data fills); null to
 * keep `windowS`.
 * @example windowWithData(3700, 86_400, { '1h': 3600, '24h': 86_400 }) // "1h"  (an hour and a bit: the last hour)
 * @example windowWithData(120, 86_400, { '1h': 3600, '24h': 86_400, '7d': 604_800 }) // "1h"
 * @example windowWithData(20 * 3600, 86_400, { '1h': 3600, '24h': 86_400 }) // null
 */
export function windowWithData(spanS: number | null, windowS: number, offered: Record<string, number>): string | null {
  const span = spanS ?? 0;
  if (span >= windowS / 4) return null;
  const shorter = Object.entries(offered)
    .filter(([, s]) => s < windowS)
    .sort((a, b) => a[1] - b[1]);
  return (shorter.find(([, s]) => s >= span) ?? shorter.at(-1))?.[0] ?? null;
}

/** "#lab-charts": where a GPU's live view opens, at its charts rather than the lab's introduction. */
export const LIVE_VIEW_ANCHOR = 'lab-charts';
