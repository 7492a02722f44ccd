/**
 * What the wasteful hours cost: each GPU at the price given (`--price-per-gpu-hour`, one for every GPU) or else at
 * its model's default list price (src/lib/gpu-prices.ts, dated and sourced); a GPU with neither stays unpriced and
 * its hours are counted apart, never priced at a guess.
 */
import type { BottleneckKind } from '../../src/lib/diagnose/index.ts';
import { defaultPriceFor, type GpuPrice } from '../../src/lib/gpu-prices.ts';
import { WASTE_STATES } from '../../src/lib/fleet-view.ts';

/** A default price used by a report, with the model it priced. */
export interface UsedPrice extends GpuPrice {
  model: string;
}

/** The cost part of an audit's summary. */
export interface CostSummary {
  /** The price given for every GPU, or null when each model's default applies. */
  pricePerGpuHour: number | null;
  /** Wasteful hours × price over the GPUs that have one; null when none has. */
  wastefulCostUsd: number | null;
  /** The same, per wasteful state. */
  costByKind: Partial<Record<BottleneckKind, number>>;
  /** Wasteful GPU-hours of GPUs with no price (a model without a default, and none given). */
  unpricedWastefulHours: number;
  /** The default prices applied, one per model, with their sources. */
  defaultPrices: UsedPrice[];
}

/** Each GPU's price per hour (given, else its model's default, else null), and what they add up to. */
export function costOf(
  gpus: readonly { model: string; hours: Partial<Record<BottleneckKind, number>> }[],
  given: number | null,
): { perGpu: (number | null)[]; summary: CostSummary } {
  const used = new Map<string, UsedPrice>();
  const perGpu = gpus.map((g) => {
    if (given !== null) return given;
    const d = defaultPriceFor(g.model);
    if (d) used.set(g.model, { model: g.model, ...d });
    return d?.usdPerGpuHour ?? null;
  });
  const costByKind: Partial<Record<BottleneckKind, number>> = {};
  let unpriced = 0;
  let priced = false;
  gpus.forEach((g, i) => {
    const price = perGpu[i] ?? null;
    if (price !== null) priced = true;
    for (const k of WASTE_STATES) {
      const h = g.hours[k] ?? 0;
      if (!h) continue;
      if (price === null) unpriced += h;
      else costByKind[k] = (costByKind[k] ?? 0) + h * price;
    }
  });
  const total = Object.values(costByKind).reduce((a, b) => a + b, 0);
  return {
    perGpu,
    summary: {
      pricePerGpuHour: given,
      wastefulCostUsd: priced ? total : null,
      costByKind,
      unpricedWastefulHours: unpriced,
      defaultPrices: [...used.values()],
    },
  };
}
