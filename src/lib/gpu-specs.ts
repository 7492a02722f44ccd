/**
 * One table of GPU datasheet numbers, shared by the lab metrics, the simulator and the explorable figures.
 * Every number agrees with /work/shared/reference/gpu-facts.md section 9 or with the source named beside it.
 * FLOP figures are DENSE peaks (datasheets headline 2:4-sparse numbers, twice as large; gpu-facts 5.9).
 * INT8 is in TOPS. A number no source gave is `null`, never guessed.
 */

/** Precisions a peak is quoted for. `fp64` is the vector (non-tensor) rate; `fp64Tensor` the Tensor Core one. */
export type Dtype = 'fp64' | 'fp64Tensor' | 'fp32' | 'tf32' | 'bf16' | 'fp8' | 'int8';

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

/** One GPU's datasheet numbers. */
export interface GpuSpec {
  /** Short id used in figures and directives, e.g. `h100-sxm`. */
  id: GpuId;
  /** How it is named on screen. */
  label: string;
  /** Streaming multiprocessors; null when the datasheet does not say. */
  smCount: number | null;
  /** Device memory, GB (10^9 bytes, as datasheets count). */
  memGB: number;
  /** Peak memory bandwidth, GB/s. */
  memBandwidthGBps: number;
  /** Board power limit (TDP), W. */
  tdpWatts: number;
  /** Highest (boost) SM clock, MHz; null when no source we cite gives it. */
  maxSmClockMHz: number | null;
  /** Dense peak per dtype: TFLOP/s (TOPS for int8); null when the part has no such unit or no source gave it. */
  peakTflops: Record<Dtype, number | null>;
  /** Where the numbers come from. */
  sources: readonly string[];
}

/** The GPUs the table covers. */
export type GpuId = 'a100-sxm-40gb' | 'a100-sxm-80gb' | 'h100-sxm' | 'h100-pcie' | 'h200' | 'l4';

const KLOCKWOOD_A100 = 'https://glennklockwood.com/garden/processors/A100';
const KLOCKWOOD_H100 = 'https://glennklockwood.com/garden/processors/h100';
const HPCTECH_H100 = 'https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html';
/** NVIDIA's Ampere whitepaper (A100 table: GPU boost clock 1410 MHz). */
const AMPERE_WHITEPAPER =
  'https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf';
const L4_DATASHEET =
  'https://www.cisco.com/c/dam/en/us/products/collateral/servers-unified-computing/ucs-c-series-rack-servers/nvidia-l4-gpu.pdf';

/** Dense peaks of Hopper SXM (H100 SXM and H200 share the compute; gpu-facts 9.1, 9.4). */
const HOPPER_SXM_PEAKS: Record<Dtype, number> = {
  fp64: 33.5,
  fp64Tensor: 66.9,
  fp32: 66.9,
  tf32: 494.7,
  bf16: 989.4,
  fp8: 1978.9,
  int8: 1978.9,
};

const A100_PEAKS: Record<Dtype, number | null> = {
  fp64: 9.7,
  fp64Tensor: 19.5,
  fp32: 19.5,
  tf32: 156,
  bf16: 312,
  fp8: null,
  int8: 624,
};

/** The table, by id. */
export const GPU_SPECS: Record<GpuId, GpuSpec> = {
  // gpu-facts 9.5, 9.6: 40 GB HBM2 at 1.555 TB/s; same compute and power as the 80 GB part.
  'a100-sxm-40gb': {
    id: 'a100-sxm-40gb',
    label: 'A100 SXM 40GB',
    smCount: 108,
    memGB: 40,
    memBandwidthGBps: 1555,
    tdpWatts: 400,
    maxSmClockMHz: 1410,
    peakTflops: A100_PEAKS,
    sources: [AMPERE_WHITEPAPER, KLOCKWOOD_A100],
  },
  // gpu-facts 9.5, 9.6; FP64 vector 9.7 and INT8 624 dense from the A100 page (NVIDIA datasheet figures).
  'a100-sxm-80gb': {
    id: 'a100-sxm-80gb',
    label: 'A100 SXM 80GB',
    smCount: 108,
    memGB: 80,
    memBandwidthGBps: 2039,
    tdpWatts: 400,
    maxSmClockMHz: 1410,
    peakTflops: A100_PEAKS,
    sources: [AMPERE_WHITEPAPER, KLOCKWOOD_A100],
  },
  // gpu-facts 9.1, 9.2: 132 SMs, 80 GB HBM3 at 3.35 TB/s, 700 W; 1.98 GHz SM clock from the Klockwood H100 page.
  'h100-sxm': {
    id: 'h100-sxm',
    label: 'H100 SXM',
    smCount: 132,
    memGB: 80,
    memBandwidthGBps: 3350,
    tdpWatts: 700,
    maxSmClockMHz: 1980,
    peakTflops: HOPPER_SXM_PEAKS,
    sources: [KLOCKWOOD_H100, HPCTECH_H100],
  },
  // gpu-facts 9.3: 114 SMs, BF16 about 756 dense, 80 GB HBM2e at about 2.0 TB/s, 300–350 W (the upper bound here).
  // Other dtypes: the hpctech table's sparse figures halved (its note: "1/2 lower without sparsity").
  'h100-pcie': {
    id: 'h100-pcie',
    label: 'H100 PCIe',
    smCount: 114,
    memGB: 80,
    memBandwidthGBps: 2000,
    tdpWatts: 350,
    maxSmClockMHz: null,
    peakTflops: { fp64: 26, fp64Tensor: 51, fp32: 51, tf32: 378, bf16: 756, fp8: 1513, int8: 1513 },
    sources: [HPCTECH_H100],
  },
  // gpu-facts 9.4: Hopper SXM compute, 141 GB HBM3e at 4.8 TB/s, 700 W; the H100 page says H200 is the same GPU.
  h200: {
    id: 'h200',
    label: 'H200',
    smCount: 132,
    memGB: 141,
    memBandwidthGBps: 4800,
    tdpWatts: 700,
    maxSmClockMHz: 1980,
    peakTflops: HOPPER_SXM_PEAKS,
    sources: ['https://www.nvidia.com/en-us/data-center/h200/', KLOCKWOOD_H100],
  },
  // NVIDIA L4 datasheet: 24 GB GDDR6, 300 GB/s, 72 W; FP32 30.3; TF32 120, BF16 242, FP8 485, INT8 485 with sparsity
  // (halved here, as content/cards/serving/right-sizing-b200-gh200-l4-l40s.md does). It gives no FP64 or SM count.
  l4: {
    id: 'l4',
    label: 'L4',
    smCount: null,
    memGB: 24,
    memBandwidthGBps: 300,
    tdpWatts: 72,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 30.3, tf32: 60, bf16: 121, fp8: 242.5, int8: 242.5 },
    sources: [L4_DATASHEET],
  },
};

/** All GPU ids in table order. */
export const GPU_IDS = Object.keys(GPU_SPECS) as GpuId[];

/** True for an id in the table. */
export function isGpuId(id: string): id is GpuId {
  return Object.hasOwn(GPU_SPECS, id);
}

/**
 * The table entry for a GPU name as NVML reports it, or null for a GPU the table does not cover.
 * @example gpuSpecByName('NVIDIA H100 80GB HBM3')?.id // "h100-sxm"
 */
export function gpuSpecByName(gpuName: string): GpuSpec | null {
  if (/H200/i.test(gpuName)) return GPU_SPECS.h200;
  if (/H100/i.test(gpuName)) return /PCIe/i.test(gpuName) ? GPU_SPECS['h100-pcie'] : GPU_SPECS['h100-sxm'];
  // A100 PCIe parts match the SXM entries: same dense peaks; their bandwidth and power differ (not in the table).
  if (/A100/i.test(gpuName)) return /40GB/i.test(gpuName) ? GPU_SPECS['a100-sxm-40gb'] : GPU_SPECS['a100-sxm-80gb'];
  if (/\bL4\b/.test(gpuName)) return GPU_SPECS.l4;
  return null;
}

/**
 * Roofline ridge point: the arithmetic intensity (FLOP/byte) above which a kernel is compute-bound.
 * @example ridgeFlopsPerByte(GPU_SPECS['h100-sxm'], 'bf16') // ≈ 295 (gpu-facts 9.9)
 */
export function ridgeFlopsPerByte(gpu: GpuSpec, dtype: Dtype): number | null {
  const peak = gpu.peakTflops[dtype];
  return peak === null ? null : (peak * 1e12) / (gpu.memBandwidthGBps * 1e9);
}
