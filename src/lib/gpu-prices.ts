/**
 * Default on-demand prices per GPU-hour for GPUs of the spec table (src/lib/gpu-specs.ts), each with the page
 * it comes from and the date it was read. The fleet page and `npm run audit` use them as the editable default for
 * the cost of wasteful hours; a user's own price (the page's field, `--price-per-gpu-hour`) always wins.
 *
 * Cloud prices change often and differ several-fold between providers for the same GPU (gpu-facts 6.11 calls any
 * specific price volatile): these are one public list price each, not a market rate. None of these pages was
 * fetched by this project: each price was read from a transcription of the provider's page stored by the search
 * corpus, which records the provider URL and the date the page was read; `via` names that transcription.
 * A GPU with no citable price has none (see NO_DEFAULT_PRICE), never a guess.
 */
import { gpuSpecByName, type GpuId } from './gpu-specs.ts';

/** One default price. */
export interface GpuPrice {
  /** US dollars per GPU per hour, on demand (an instance price divided by its GPUs where the page lists instances). */
  usdPerGpuHour: number;
  /** What was priced, as the provider names it. */
  offer: string;
  /** The provider. */
  provider: string;
  /** The provider's pricing page. */
  sourceUrl: string;
  /** The date the page was read, YYYY-MM-DD. */
  readOn: string;
  /** Where the reading is stored (a transcription of the page, with its date), so it can be checked. */
  via: string;
}

const LAMBDA = {
  provider: 'Lambda',
  sourceUrl: 'https://lambda.ai/instances',
  readOn: '2026-09-20',
  via: 'github.com/api-evangelist/lambda-labs plans/lambda-labs-plans-pricing.yml (the page transcribed 2026-09-20)',
} as const;

const COREWEAVE = {
  provider: 'CoreWeave',
  sourceUrl: 'https://www.coreweave.com/pricing',
  readOn: '2026-09-20',
  via: 'github.com/api-evangelist/coreweave plans/coreweave-plans-pricing.yml (the page transcribed 2026-09-20)',
} as const;

/** The default price per GPU model; a model missing here has no default (NO_DEFAULT_PRICE says why). */
export const GPU_PRICES: Partial<Record<GpuId, GpuPrice>> = {
  'a100-sxm-40gb': { ...LAMBDA, usdPerGpuHour: 1.99, offer: '8x NVIDIA A100 SXM 40 GB, per GPU per hour' },
  'a100-sxm-80gb': { ...LAMBDA, usdPerGpuHour: 2.79, offer: '8x NVIDIA A100 SXM 80 GB, per GPU per hour' },
  'h100-sxm': { ...LAMBDA, usdPerGpuHour: 3.99, offer: '8x NVIDIA H100 SXM, per GPU per hour' },
  'h100-pcie': { ...LAMBDA, usdPerGpuHour: 3.29, offer: '1x NVIDIA H100 PCIe, per GPU per hour' },
  // The page lists 180 GB of VRAM per GPU: the HGX B200 row (src/lib/gpu-table/ada-blackwell.ts).
  b200: { ...LAMBDA, usdPerGpuHour: 6.69, offer: '8x NVIDIA B200 SXM6 (180 GB VRAM/GPU), per GPU per hour' },
  // "96 GB VRAM": the GH200 with 96 GB HBM3, which NVML names "NVIDIA GH200 480GB"; not the 144 GB HBM3e part.
  'gh200-96gb': { ...LAMBDA, usdPerGpuHour: 2.29, offer: '1x NVIDIA GH200 (96 GB VRAM), per GPU per hour' },
  'rtx-a6000': { ...LAMBDA, usdPerGpuHour: 1.09, offer: '4x NVIDIA A6000 (48 GB VRAM/GPU), per GPU per hour' },
  a10: { ...LAMBDA, usdPerGpuHour: 1.29, offer: '1x NVIDIA A10 (24 GB VRAM), per GPU per hour' },
  // $50.44 an hour for an 8-GPU HGX H200 instance, on demand: $6.305 per GPU-hour.
  h200: { ...COREWEAVE, usdPerGpuHour: 6.305, offer: 'NVIDIA HGX H200 (8 GPUs) on demand, $50.44 per hour ÷ 8' },
};

const NOT_FOUND = (model: string) =>
  `no on-demand ${model} price was found on a provider page in the sources searched; enter your own`;

/**
 * Why a model of the spec table has no default price. A model gets no neighbour's price: the H200 NVL is not
 * priced as the H200 SXM, the GH200 144 GB not as the 96 GB one, the A100 PCIe not as the SXM.
 */
export const NO_DEFAULT_PRICE: Partial<Record<GpuId, string>> = {
  l4: NOT_FOUND('L4'),
  a10g: NOT_FOUND('A10G (AWS prices G5 instances, not GPUs)'),
  a30: NOT_FOUND('A30'),
  a40: NOT_FOUND('A40'),
  l40: NOT_FOUND('L40'),
  l40s: NOT_FOUND('L40S'),
  'a100-pcie-40gb': NOT_FOUND('A100 PCIe 40GB'),
  'a100-pcie-80gb': NOT_FOUND('A100 PCIe 80GB'),
  'h100-nvl': NOT_FOUND('H100 NVL'),
  'h200-nvl': NOT_FOUND('H200 NVL'),
  'gh200-144gb': NOT_FOUND('GH200 144GB'),
  'rtx-6000-ada': NOT_FOUND('RTX 6000 Ada'),
  'rtx-4090': NOT_FOUND('GeForce RTX 4090'),
};

/**
 * The default price for a GPU as dcgm-exporter or NVML names it, or null for a model without one. The model is
 * found by the table's exact lookup (`gpuSpecByName`), so an unknown model is never priced as a neighbour.
 * @example defaultPriceFor('NVIDIA H100 80GB HBM3')?.usdPerGpuHour // 3.99
 */
export function defaultPriceFor(modelName: string): GpuPrice | null {
  const spec = gpuSpecByName(modelName);
  return (spec && GPU_PRICES[spec.id]) ?? null;
}

/** Hours in an average month (365 × 24 / 12, rounded): what "a month" of GPU time costs, everywhere. */
export const HOURS_PER_MONTH = 730;

/**
 * What a month of a GPU at `share` of the time costs at price `p`, as text.
 * @example monthlyCostText(GPU_PRICES['h100-sxm']) // "$2,913"
 */
export function monthlyCostText(p: GpuPrice, share = 1): string {
  return `$${Math.round(share * HOURS_PER_MONTH * p.usdPerGpuHour).toLocaleString('en-US')}`;
}

/** "$3.99/GPU-hour, Lambda (lambda.ai/instances), read 2026-09-20": a default with its source, for a label. */
export function describePrice(p: GpuPrice): string {
  return `$${p.usdPerGpuHour}/GPU-hour, ${p.provider} list price (${p.sourceUrl.replace(/^https:\/\/(www\.)?/, '')}), read ${p.readOn}`;
}
