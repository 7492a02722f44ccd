/**
 * One table of GPU datasheet numbers for every GPU a fleet is likely to run, shared by the lab metrics, the
 * simulator, the explorable figures, the fleet page and the audit. The rows live in src/lib/gpu-table/ by
 * architecture, each with its sources (keys of GPU_SOURCES in src/lib/gpu-table/sources.ts, loaded only where they
 * are shown) and a note on what is derived or uncertain.
 * FLOP figures are DENSE peaks (datasheets headline 2:4-sparse numbers, twice as large; gpu-facts 5.9), defined at
 * `peakClockMHz`. INT8 is in TOPS. A number no source gave is `null`, never guessed.
 *
 * A GPU is found by the name NVML or dcgm-exporter reports, exactly, after `normaliseGpuName` (case, whitespace, an
 * optional "NVIDIA " prefix). There is no near match: a name the table does not list is an unknown model, and
 * whatever shows it says so (`describeGpuModel`), never a neighbour's numbers.
 */
import { ADA_BLACKWELL_ROWS } from './gpu-table/ada-blackwell.ts';
import { AMPERE_ROWS } from './gpu-table/ampere.ts';
import { HOPPER_ROWS } from './gpu-table/hopper.ts';
import type { Dtype, GpuId, GpuSpec } from './gpu-table/types.ts';

export type { Dtype, GpuId, GpuSource, GpuSpec, SourcePrimacy } from './gpu-table/types.ts';

/** All dtypes in table order. */
export const DTYPES: readonly Dtype[] = ['fp64', 'fp64Tensor', 'fp32', 'tf32', 'bf16', 'fp8', 'int8'];

/** How each dtype is named on screen. */
export const DTYPE_LABELS: Record<Dtype, string> = {
  fp64: 'FP64',
  fp64Tensor: 'FP64 Tensor',
  fp32: 'FP32',
  tf32: 'TF32 Tensor',
  bf16: 'BF16/FP16 Tensor',
  fp8: 'FP8 Tensor',
  int8: 'INT8 Tensor',
};

/** Bytes per element of each dtype (for KV cache and weight sizes). */
export const DTYPE_BYTES: Record<Dtype, number> = {
  fp64: 8,
  fp64Tensor: 8,
  fp32: 4,
  tf32: 4,
  bf16: 2,
  fp8: 1,
  int8: 1,
};

const ROWS: readonly GpuSpec[] = [...AMPERE_ROWS, ...HOPPER_ROWS, ...ADA_BLACKWELL_ROWS];

/** The table, by id. */
export const GPU_SPECS = Object.fromEntries(ROWS.map((r) => [r.id, r])) as Record<GpuId, GpuSpec>;

/** All GPU ids in table order. */
export const GPU_IDS = ROWS.map((r) => r.id);

/** True for an id in the table. */
export function isGpuId(id: string): id is GpuId {
  return Object.hasOwn(GPU_SPECS, id);
}

/**
 * The form of a GPU name the table matches on: trimmed, runs of whitespace as one space, lower case, without a
 * leading "NVIDIA " (older drivers report "A100-SXM4-40GB", newer ones "NVIDIA A100-SXM4-40GB"). Nothing else is
 * changed: "H100 PCIe" and "H100 NVL" stay different names.
 * @example normaliseGpuName('  nvidia   A100-SXM4-80GB ') // "a100-sxm4-80gb"
 */
export function normaliseGpuName(gpuName: string): string {
  return gpuName
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase()
    .replace(/^nvidia /, '');
}

const BY_NAME = new Map<string, GpuSpec>();
for (const row of ROWS)
  for (const name of row.nvmlNames) {
    const key = normaliseGpuName(name);
    const had = BY_NAME.get(key);
    if (had) throw new Error(`GPU table: "${name}" is listed for both ${had.id} and ${row.id}; keep it on one row.`);
    BY_NAME.set(key, row);
  }

/**
 * The table entry for a GPU name as NVML or dcgm-exporter's `modelName` reports it, or null for a model the table
 * does not list. Exact after `normaliseGpuName`: no substring or pattern match.
 * @example gpuSpecByName('NVIDIA H100 80GB HBM3')?.id // "h100-sxm"
 * @example gpuSpecByName('NVIDIA GH200 480GB')?.id // "gh200-96gb", never the H200's row
 * @example gpuSpecByName('Tesla V100-SXM2-32GB') // null
 */
export function gpuSpecByName(gpuName: string): GpuSpec | null {
  let spec = BY_REPORTED.get(gpuName);
  if (spec === undefined) {
    spec = BY_NAME.get(normaliseGpuName(gpuName)) ?? null;
    // The names a fleet reports are few (one per model and driver); a hostile source could send many.
    if (BY_REPORTED.size < 1024) BY_REPORTED.set(gpuName, spec);
  }
  return spec;
}

/** Names as reported, looked up once: a fleet audit asks for each GPU's model at every reading it flattens. */
const BY_REPORTED = new Map<string, GpuSpec | null>();

/** What a model name is shown as when the table does not know it. */
export const UNKNOWN_MODEL = 'unknown model';

/**
 * A reported model name as a page or report shows it: as reported when the table lists it, marked as an unknown
 * model when it does not (so no one mistakes it for a row that has numbers). `escape` formats the reported name for
 * its medium (a Markdown cell escapes it) and leaves the marker as it is.
 * @example describeGpuModel('NVIDIA A100 80GB PCIe') // "NVIDIA A100 80GB PCIe"
 * @example describeGpuModel('Tesla V100-SXM2-32GB') // "Tesla V100-SXM2-32GB (unknown model)"
 */
export function describeGpuModel(gpuName: string, escape: (name: string) => string = (n) => n): string {
  return gpuSpecByName(gpuName) ? escape(gpuName) : `${escape(gpuName)} (${UNKNOWN_MODEL})`;
}

/**
 * Roofline ridge point: the arithmetic intensity (FLOP/byte) above which a kernel is compute-bound.
 * @example ridgeFlopsPerByte(GPU_SPECS['h100-sxm'], 'bf16') // ≈ 295 (gpu-facts 9.9)
 */
export function ridgeFlopsPerByte(gpu: GpuSpec, dtype: Dtype): number | null {
  const peak = gpu.peakTflops[dtype];
  return peak === null ? null : (peak * 1e12) / (gpu.memBandwidthGBps * 1e9);
}

/**
 * Compute-bound throughput at an SM clock, as a share of the dense peak: clock ÷ the clock the peak is defined at
 * (not ÷ the maximum SM clock). Null when the table has no peak clock for the GPU.
 * @example peakShareAtClock(GPU_SPECS['h100-sxm'], 1830) // 1
 * @example peakShareAtClock(GPU_SPECS['h100-sxm'], 1980) // ≈ 1.082
 */
export function peakShareAtClock(gpu: GpuSpec, smClockMHz: number): number | null {
  return gpu.peakClockMHz === null ? null : smClockMHz / gpu.peakClockMHz;
}
