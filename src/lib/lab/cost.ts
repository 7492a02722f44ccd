/**
 * The idle lab's cost box: the share of the last 30 s the GPU held memory with no kernel running, priced at the
 * GPU's sourced list price (src/lib/gpu-prices.ts), the same table the fleet page and `npm run audit` use. A model
 * without a sourced price gets no cost, never a guess. Pure.
 */
import { defaultPriceFor, HOURS_PER_MONTH, monthlyCostText, type GpuPrice } from '../gpu-prices.ts';
import type { MetricPoint } from './metrics.ts';

/** What the cost box says. */
export interface IdleCostBox {
  /** Share of the last 30 s idle but allocated, 0–1. */
  share: number;
  /** The GPU's sourced price, or null for a model without one. */
  price: GpuPrice | null;
  /** A month (HOURS_PER_MONTH) like the last 30 s at that price, e.g. "$2,913"; null without a price. */
  monthly: string | null;
}

/** Share of the last 30 s of `points` that the GPU held memory (≥ 1 GiB) with GPU-Util under 5%. */
export function idleShare(points: readonly MetricPoint[]): number {
  const last = points[points.length - 1];
  if (!last) return 0;
  const recent = points.filter((p) => p.tMs > last.tMs - 30_000);
  const idle = recent.filter((p) => (p.values.gpuUtilPct ?? 100) < 5 && (p.values.memUsedGiB ?? 0) >= 1).length;
  return recent.length ? idle / recent.length : 0;
}

/**
 * The cost box for the GPU named `gpuName` (as NVML names it), or null before any sample.
 * @example idleCostBox([], 'NVIDIA H100 80GB HBM3') // null
 */
export function idleCostBox(points: readonly MetricPoint[], gpuName: string | null): IdleCostBox | null {
  if (points.length === 0) return null;
  const share = idleShare(points);
  const price = gpuName ? defaultPriceFor(gpuName) : null;
  return { share, price, monthly: price ? monthlyCostText(price, share) : null };
}

export { HOURS_PER_MONTH };
