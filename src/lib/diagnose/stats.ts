/**
 * Window statistics of one GPU (plus the host and throughput beside it), the inputs of
 * `diagnose()`. Pure. Means skip null readings; a metric with no reading at all is null.
 * Every reading is rounded as the text shows it (shown.ts), so the rules compare what the learner reads.
 */
import { CLOCK_EVENT_REASONS, type StreamMessage } from '../../protocol/metrics.ts';
import { toPoint, type MetricId, type MetricPoint } from '../lab/metrics.ts';
import { share, tenth, whole } from './shown.ts';

/** Mean, spread and extremes of a metric. */
export interface Spread {
  n: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  /** 90th percentile: robust to a single noisy reading. */
  p90: number;
}

/** What the diagnosis reads about one GPU over the window. */
export interface GpuStats {
  /** The GPU's model as NVML or dcgm-exporter names it (the newest sample's), or null when none was named. */
  name: string | null;
  spanS: number;
  util: Spread;
  utilWhy: string | null;
  memUtil: number | null;
  powerW: number | null;
  powerPct: number | null;
  powerLimitW: number | null;
  tempC: number | null;
  /** Memory (HBM) temperature, °C; null where the GPU does not report it. */
  memTempC: number | null;
  clockMhz: number | null;
  clockMaxMhz: number | null;
  clockPct: number | null;
  /** Share of samples (of those that report reasons) with any limiting reason active; null when none report. */
  limitingFrac: number | null;
  /** Samples in the window that reported clock event reasons. */
  reasonSamples: number;
  /** Of those, the samples with any limiting reason active (limitingFrac's count, unrounded). */
  limitingSamples: number;
  /** Each active clock event reason (GpuIdle excluded) and the share of samples it was active in. */
  reasons: [string, number][];
  sm: number | null;
  tensor: number | null;
  dram: number | null;
  fp32: number | null;
  /** PCIe bytes per second, both directions; null when not reported. */
  pcieBytesPerSec: number | null;
  memUsedGiB: number | null;
  processCount: number | null;
  processNames: string[];
  cpuPct: number | null;
  maxCorePct: number | null;
  samplesPerSec: number | null;
  tokensPerSec: number | null;
  stepsPerSec: number | null;
  /** Share of wall time the training loop waited for data (0–1), from its DataLoader timer. */
  dataWait: number | null;
}

/** Reasons that hold the clock below what the work asks for (every one but GpuIdle). */
const LIMITING = new Set(CLOCK_EVENT_REASONS.filter((r) => r.limiting).map((r) => r.name));

/** Spread of values; n = 0 gives zeros. */
export function spread(values: readonly number[]): Spread {
  const n = values.length;
  if (n === 0) return { n, mean: 0, std: 0, min: 0, max: 0, p90: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sorted = [...values].sort((a, b) => a - b);
  const p90 = sorted[Math.min(n - 1, Math.floor(0.9 * n))] ?? mean;
  return {
    n,
    mean,
    std: Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n),
    min: sorted[0] ?? 0,
    max: sorted[n - 1] ?? 0,
    p90,
  };
}

function meanOf(points: readonly MetricPoint[], id: MetricId): number | null {
  // A loop, not map and filter: a fleet audit takes 18 means of every GPU's ~600 points.
  let sum = 0;
  let n = 0;
  for (const p of points) {
    const v = p.values[id];
    if (v !== null) {
      sum += v;
      n++;
    }
  }
  return n ? sum / n : null;
}

/** A spread as the text shows it: mean, extremes and p90 in whole percent. */
const shownSpread = (s: Spread): Spread => ({
  ...s,
  mean: Math.round(s.mean),
  min: Math.round(s.min),
  max: Math.round(s.max),
  p90: Math.round(s.p90),
});

/**
 * toPoint of GPU `index` in each message, flattened once for a run of messages that carry the same GPU sample, host
 * sample and throughput (the same objects): the fleet audit's steady copies of a segment (server/fleet/steady.ts) share
 * them, and a 24 h audit of 512 GPUs flattened each of its ~570,000 copies anew. The points of a run share their
 * `values` and `why` (read only here).
 */
function pointsOf(window: readonly StreamMessage[], index: number): MetricPoint[] {
  let prev: { m: StreamMessage; p: MetricPoint } | undefined;
  return window.map((m) => {
    const g = m.gpus[index];
    if (prev && g && prev.m.gpus[index] === g && prev.m.host === m.host && prev.m.throughput === m.throughput)
      return { ...prev.p, tMs: m.sampledAtMs };
    const p = toPoint(m, index);
    prev = { m, p };
    return p;
  });
}

/**
 * Statistics of GPU `index` (position in `gpus`) over `window` (oldest first), each reading rounded as the
 * diagnosis text shows it (shown.ts: a value printed "80%" is never "below 80%").
 */
export function gpuStats(window: readonly StreamMessage[], index: number): GpuStats {
  const points = pointsOf(window, index);
  const first = window[0];
  const last = window[window.length - 1];
  const spanS =
    first && last ? Math.round((last.sampledAtMs - first.sampledAtMs) / 1000) + (window.length > 1 ? 0 : 1) : 0;
  const utilVals = points.map((p) => p.values.gpuUtilPct).filter((v): v is number => v !== null);
  const reasonCount = new Map<string, number>();
  let reasonSamples = 0;
  let limitingSamples = 0;
  const pcie: number[] = [];
  const names = new Set<string>();
  let limitW: number | null = null;
  let maxMhz: number | null = null;
  for (const m of window) {
    const g = m.gpus[index];
    if (!g) continue;
    limitW = g.powerLimitWatts ?? limitW;
    maxMhz = g.smClockMaxMhz ?? maxMhz;
    if (g.clockEventReasons) {
      reasonSamples++;
      for (const r of g.clockEventReasons) if (r !== 'GpuIdle') reasonCount.set(r, (reasonCount.get(r) ?? 0) + 1);
      if (g.clockEventReasons.some((r) => LIMITING.has(r))) limitingSamples++;
    }
    if (g.pcieTxBytesPerSec !== null && g.pcieRxBytesPerSec !== null)
      pcie.push(g.pcieTxBytesPerSec + g.pcieRxBytesPerSec);
    for (const p of g.processes ?? []) if (p.name) names.add(p.name);
  }
  const memUsed = meanOf(points, 'memUsedGiB');
  const procs = points.map((p) => p.values.processCount).filter((v): v is number => v !== null);
  return {
    name: last?.gpus[index]?.name || null,
    spanS,
    util: shownSpread(spread(utilVals)),
    utilWhy: utilVals.length ? null : (points[points.length - 1]?.why.gpuUtilPct ?? null),
    memUtil: whole(meanOf(points, 'memUtilPct')),
    powerW: whole(meanOf(points, 'powerWatts')),
    powerPct: whole(meanOf(points, 'powerPctOfLimit')),
    powerLimitW: whole(limitW),
    tempC: whole(meanOf(points, 'temperatureC')),
    memTempC: whole(meanOf(points, 'memTemperatureC')),
    clockMhz: whole(meanOf(points, 'smClockMhz')),
    clockMaxMhz: whole(maxMhz),
    clockPct: whole(meanOf(points, 'smClockPctOfMax')),
    limitingFrac: reasonSamples ? share(limitingSamples / reasonSamples) : null,
    reasonSamples,
    limitingSamples,
    reasons: reasonSamples
      ? [...reasonCount]
          .map(([r, c]): [string, number] => [r, share(c / reasonSamples) ?? 0])
          .filter(([, f]) => f >= 0.1)
          .sort((a, b) => b[1] - a[1])
      : [],
    sm: whole(meanOf(points, 'smActivePct')),
    tensor: whole(meanOf(points, 'tensorActivePct')),
    dram: whole(meanOf(points, 'dramActivePct')),
    fp32: whole(meanOf(points, 'fp32ActivePct')),
    pcieBytesPerSec: pcie.length ? pcie.reduce((a, b) => a + b, 0) / pcie.length : null,
    memUsedGiB: tenth(memUsed),
    processCount: procs.length ? Math.max(...procs) : null,
    processNames: [...names],
    cpuPct: whole(meanOf(points, 'cpuPct')),
    maxCorePct: whole(meanOf(points, 'maxCorePct')),
    samplesPerSec: meanOf(points, 'samplesPerSec'),
    tokensPerSec: meanOf(points, 'tokensPerSec'),
    stepsPerSec: meanOf(points, 'stepsPerSec'),
    dataWait: share(((w) => (w === null ? null : w / 100))(meanOf(points, 'dataWaitPct'))),
  };
}
