/**
 * A window segment's averages as a steady stretch of readings for the diagnosis engine: the fleet's hours per state
 * come from these, the verdict now from the scrapes themselves, and the two must agree for a job that does not
 * change. Pure.
 */
import type { GpuSample, StreamMessage } from '../../src/protocol/metrics.ts';
import type { UtilSpread } from './collect.ts';

/** Copies of a segment's averaged reading across the segment: 20, so that their 90th percentile is not their top. */
export const STEADY_COPIES = 20;

/**
 * GPU-Util for each of the STEADY_COPIES copies of a segment: the segment's least reading, its 90th percentile and
 * its greatest in the places the engine reads them (sorted: first, 19th, 20th), the rest at the value that keeps
 * the segment's mean. The engine then sees the same mean and spread as the scrapes themselves, and judges a steady
 * job as the live verdict does: a starved job that reads 0% most of the time with bursts is "waiting", not idle.
 *
 * Without a 90th percentile (not read: it could not change the verdict, collect.ts UtilSpread) the 19th copy joins
 * the 18 in the middle, at the value that keeps the mean with the extremes where they are; where the mean is too
 * near the least reading for that, the middle copies sit at the least reading and the top gives way. Either way the
 * engine reads the segment's own mean, and a 90th percentile no greater than the greatest reading.
 *
 * @example steadyUtil(4, { min: 0, p90: 30, max: 40 })[18] // 30
 * @example steadyUtil(50, { min: 0, p90: null, max: 100 })[10] // 50
 */
export function steadyUtil(mean: number, s: UtilSpread): number[] {
  const n = STEADY_COPIES;
  const rest = n - 3;
  if (s.p90 === null) {
    const mid = Math.min(s.max, Math.max(s.min, (n * mean - s.min - s.max) / (n - 2)));
    const top = Math.min(s.max, Math.max(mid, n * mean - s.min - (n - 2) * mid));
    return [s.min, ...new Array<number>(n - 2).fill(mid), top];
  }
  const x = Math.min(s.p90, Math.max(s.min, (n * mean - s.min - s.p90 - s.max) / rest));
  // Where the extremes leave the rest below the least reading, the top gives way so the mean still holds.
  const top = Math.min(s.max, Math.max(s.p90, n * mean - s.min - s.p90 - rest * x));
  return [s.min, ...new Array<number>(rest).fill(x), s.p90, top];
}

/**
 * A segment's averages as a window of STEADY_COPIES readings spread over it, so the engine judges it as a
 * steady stretch. A clock event reason active in a share p of the segment's scrapes is set on round(p × 20)
 * of the copies: the engine then applies its own rule for how often a reason must be active. GPU-Util keeps its
 * spread over the segment where Prometheus gave it (`spreads`, see steadyUtil): the live verdict reads it too.
 */
export function steadyWindow(
  m: StreamMessage,
  segmentS: number,
  shares?: Map<number, Record<string, number>>,
  spreads?: Map<number, UtilSpread>,
): StreamMessage[] {
  const utils = m.gpus.map((g, gi) => {
    const spread = spreads?.get(gi);
    return spread && g.gpuUtilPct !== null ? steadyUtil(g.gpuUtilPct, spread) : null;
  });
  // Each GPU's reasons with the number of copies that carry them (the first round(p × 20)), worked out once.
  const cuts = m.gpus.map((_, gi) => {
    const share = shares?.get(gi);
    return share && Object.entries(share).map(([name, p]): [string, number] => [name, Math.round(p * STEADY_COPIES)]);
  });
  // A copy equal to the one before it (same GPU-Util, same reasons: most of the 20) is that same object, so the
  // engine flattens it once (diagnose/stats.ts pointsOf) and the audit makes a few objects a segment, not 20.
  const prev: (GpuSample | undefined)[] = [];
  return Array.from({ length: STEADY_COPIES }, (_, k) => ({
    ...m,
    sampledAtMs: m.sampledAtMs - Math.round(((STEADY_COPIES - 1 - k) * segmentS * 1000) / STEADY_COPIES),
    gpus: m.gpus.map((g, gi) => {
      const cut = cuts[gi];
      const util = utils[gi]?.[k];
      if (!cut && util === undefined) return g;
      const reasons = cut ? cut.filter(([, n]) => k < n).map(([name]) => name) : undefined;
      const before = prev[gi];
      if (
        before &&
        (util === undefined || before.gpuUtilPct === util) &&
        (reasons === undefined || before.clockEventReasons?.length === reasons.length)
      )
        return before;
      const copy: GpuSample = {
        ...g,
        ...(util === undefined ? {} : { gpuUtilPct: util }),
        ...(reasons ? { clockEventReasons: reasons } : {}),
      };
      prev[gi] = copy;
      return copy;
    }),
  }));
}
