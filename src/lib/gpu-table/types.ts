/**
 * The shape of one row of the GPU table (src/lib/gpu-specs.ts) and of the sources behind it. Types only, so the
 * row files and the lookup can share them without importing each other.
 */

/** Precisions a peak is quoted for. `fp64` is the vector (non-tensor) rate; `fp64Tensor` the Tensor Core one. */
export type Dtype = 'fp64' | 'fp64Tensor' | 'fp32' | 'tf32' | 'bf16' | 'fp8' | 'int8';

/** The products the table covers, one id each. */
export type GpuId =
  | 'a10'
  | 'a10g'
  | 'a30'
  | 'a40'
  | 'a100-pcie-40gb'
  | 'a100-pcie-80gb'
  | 'a100-sxm-40gb'
  | 'a100-sxm-80gb'
  | 'rtx-a6000'
  | 'h100-pcie'
  | 'h100-sxm'
  | 'h100-nvl'
  | 'h200'
  | 'h200-nvl'
  | 'gh200-96gb'
  | 'gh200-144gb'
  | 'l4'
  | 'l40'
  | 'l40s'
  | 'rtx-6000-ada'
  | 'rtx-4090'
  | 'b200';

/**
 * How close a source is to the maker: `datasheet` (NVIDIA's product datasheet or brief), `whitepaper` (NVIDIA's
 * architecture whitepaper), `vendor page` (NVIDIA's or a cloud provider's product page), `secondary` (a third
 * party reporting or deriving the number).
 */
export type SourcePrimacy = 'datasheet' | 'whitepaper' | 'vendor page' | 'secondary';

/** The key of a source in GPU_SOURCES (src/lib/gpu-table/sources.ts). */
export type SourceKey =
  | 'AMPERE_WHITEPAPER'
  | 'A100_DATASHEET'
  | 'KLOCKWOOD_A100'
  | 'A10_DATASHEET'
  | 'BASETEN_A10G'
  | 'AWS_G5'
  | 'A30_DATASHEET'
  | 'A40_DATASHEET'
  | 'RTX_A6000_PAGE'
  | 'H100_DATASHEET'
  | 'H100_PCIE_BRIEF'
  | 'HOPPER_WHITEPAPER'
  | 'KLOCKWOOD_H100'
  | 'HPCTECH_H100'
  | 'H200_PAGE'
  | 'GH200_DATASHEET'
  | 'L4_DATASHEET'
  | 'L40_DATASHEET'
  | 'L40S_DATASHEET'
  | 'L40_L40S_TABLE'
  | 'RTX_6000_ADA_DATASHEET'
  | 'ADA_WHITEPAPER'
  | 'BLACKWELL_DATASHEET'
  | 'KLOCKWOOD_B200';

/** One source of a row, and which of its numbers it gives. */
export interface GpuSource {
  title: string;
  url: string;
  primary: SourcePrimacy;
  /** The row's fields this source gives, e.g. "peaks, memory, bandwidth, TDP". */
  covers: string;
}

/** One GPU product's datasheet numbers. */
export interface GpuSpec {
  /** Short id used in figures and directives, e.g. `h100-sxm`. */
  id: GpuId;
  /** How it is named on screen. */
  label: string;
  /**
   * The names NVML (`nvmlDeviceGetName`, nvidia-smi's `name`) and dcgm-exporter's `modelName` label report for this
   * product, as seen in the wild; several where drivers differ. Matched exactly after `normaliseGpuName`.
   */
  nvmlNames: readonly string[];
  /** Streaming multiprocessors; null when no source we cite gives it. */
  smCount: number | null;
  /** Device memory, GB (10^9 bytes, as datasheets count). */
  memGB: number;
  /** Peak memory bandwidth, GB/s. */
  memBandwidthGBps: number;
  /** Board power limit (TDP), W; the upper end where the datasheet gives a range; null when none is published. */
  tdpWatts: number | null;
  /**
   * The SM clock the dense peaks are defined at, MHz: peak = SMs × dense FLOPs per SM per clock × this clock.
   * Tensor throughput scales against this clock, not the maximum. Null when no source gives it or lets us derive it.
   */
  peakClockMHz: number | null;
  /** Highest SM clock the GPU reports (`clocks.max.sm`), MHz; null when no source we cite gives it. */
  maxSmClockMHz: number | null;
  /** Dense peak per dtype: TFLOP/s (TOPS for int8); null when the part has no such unit or no source gave it. */
  peakTflops: Record<Dtype, number | null>;
  /** Where the numbers come from, most primary first: keys of GPU_SOURCES (src/lib/gpu-table/sources.ts). */
  sources: readonly SourceKey[];
  /** What is uncertain or derived in this row, in a sentence or two. */
  note: string;
}
