/**
 * The arithmetic behind the labs' hardware numbers: the workloads' default configs (as in
 * workloads/*.py; test/unit/lab-numbers.test.ts reads the scripts and compares), their parameter and
 * FLOP counts, and the simulator's illustrative throughputs derived from the spec table
 * (src/lib/gpu-specs.ts). Pure. Lab texts quote these numbers with the arithmetic beside them, and the
 * test recomputes every one, so a changed table or script fails a stale text.
 */
import { GPU_SPECS, peakShareAtClock, type Dtype, type GpuSpec } from '../gpu-specs.ts';
import { boardPowerWatts, clockShareUnderLimit } from '../power-model.ts';

/** A table row with every number the labs compute from (power, clocks, SMs). */
export type LabGpu = GpuSpec & { tdpWatts: number; maxSmClockMHz: number; peakClockMHz: number; smCount: number };

function labGpu(g: GpuSpec): LabGpu {
  if (g.tdpWatts === null || g.maxSmClockMHz === null || g.peakClockMHz === null || g.smCount === null)
    throw new Error(`The lab GPU ${g.id} needs a TDP, max and peak clock and SM count in src/lib/gpu-table/.`);
  return g as LabGpu;
}

/** The GPU the simulator plays and the lab texts compute for. */
export const LAB_GPU = labGpu(GPU_SPECS['h100-sxm']);

/** Dense peak of the lab GPU in FLOP/s for a dtype (the table has every Hopper dtype). */
export function labPeakFlops(dtype: Dtype): number {
  return (LAB_GPU.peakTflops[dtype] ?? 0) * 1e12;
}

/** workloads/mfu.py's defaults: a small GPT (untied output head, learned positions). */
export const MFU_GPT = { vocab: 32768, dModel: 1024, layers: 12, heads: 16, seq: 1024, batch: 8 } as const;
export type GptConfig = { vocab: number; dModel: number; layers: number; heads: number; seq: number };

/** Parameters of one mfu.py Block: two LayerNorms, qkv and output projections, a 4× MLP, all with biases. */
export function gptBlockParams(d: number): number {
  const layerNorms = 2 * (2 * d);
  const qkv = d * 3 * d + 3 * d;
  const proj = d * d + d;
  const mlp = d * 4 * d + 4 * d + 4 * d * d + d;
  return layerNorms + qkv + proj + mlp;
}

/** N as mfu.py counts it: every parameter except the token and position embeddings (the output head counts). */
export function gptParams(c: GptConfig): number {
  return c.layers * gptBlockParams(c.dModel) + 2 * c.dModel + c.dModel * c.vocab;
}

/** Training FLOPs per token, PaLM Appendix B as mfu.py computes it: 6N + 12·L·H·Q·T. */
export function gptFlopsPerToken(c: GptConfig): { sixN: number; attention: number; total: number } {
  const sixN = 6 * gptParams(c);
  const attention = 12 * c.layers * c.heads * (c.dModel / c.heads) * c.seq;
  return { sixN, attention, total: sixN + attention };
}

/** workloads/tensor_cores.py's defaults: a stack of width → 4·width → width MLP blocks. */
export const TENSOR_MLP = { tokens: 8192, width: 4096, layers: 8 } as const;

/** Parameters of tensor_cores.py's MLP stack (weights and biases). */
export function mlpParams(c: { width: number; layers: number }): number {
  return c.layers * (2 * 4 * c.width * c.width + 4 * c.width + c.width);
}

/** workloads/sustained_load.py's defaults: (tokens × width) @ (width × width) in bf16. */
export const SUSTAINED = { tokens: 16384, width: 8192 } as const;

/** workloads/roofline.py's default size: n × n bf16 tensors. */
export const ROOFLINE_N = 8192;

/** Arithmetic intensity of roofline.py's ops (FLOP per byte of minimum traffic, 2-byte bf16). */
export function rooflineIntensity(op: 'elementwise' | 'matmul', n = ROOFLINE_N): number {
  const bytes = 3 * 2 * n * n; // read two n×n tensors, write one
  return op === 'elementwise' ? (n * n) / bytes : (2 * n ** 3) / bytes;
}

/** workloads/small_batch.py's defaults: an MLP over `seq` positions per sample, replayed as a CUDA Graph. */
export const SMALL_BATCH = { seq: 256, width: 256, layers: 24, batchBefore: 1, batchAfter: 128 } as const;

/**
 * Illustrative efficiencies the simulator plays: NOT measured (no GPU ran them), chosen well inside what
 * the spec table allows. Each lab text that quotes a simulated rate says it is illustrative.
 */
export const ILLUSTRATIVE = {
  /** mfu.py in fp32 with TF32 off: this share of the FP32 (non-tensor) peak. */
  gptFp32ShareOfFp32Peak: 0.5,
  /** mfu.py in bf16 autocast: this MFU against the dense BF16 peak. */
  gptBf16Mfu: 0.25,
  /** sustained_load.py's GEMM at the clock the peak is defined at (1,830 MHz on H100 SXM): this share of the peak. */
  gemmShareOfBf16Peak: 0.7,
} as const;

/** The simulator's tokens/s for mfu.py's GPT on the lab GPU, fp32 (no TF32) or bf16 autocast. */
export function gptTokensPerSec(amp: boolean): number {
  const flops = gptFlopsPerToken(MFU_GPT).total;
  return amp
    ? (ILLUSTRATIVE.gptBf16Mfu * labPeakFlops('bf16')) / flops
    : (ILLUSTRATIVE.gptFp32ShareOfFp32Peak * labPeakFlops('fp32')) / flops;
}

/** FLOPs per token of sustained_load.py: one (1 × width) @ (width × width) product, 2·width². */
export function sustainedFlopsPerToken(width: number = SUSTAINED.width): number {
  return 2 * width * width;
}

/**
 * The simulator's tokens/s for sustained_load.py at an SM clock: tensor throughput scales against the clock the
 * dense peak is defined at (LAB_GPU.peakClockMHz, 1,830 MHz), not the max SM clock (1,980 MHz).
 */
export function sustainedTokensPerSec(smClockMHz: number): number {
  const peakShare = peakShareAtClock(LAB_GPU, smClockMHz)!;
  return (ILLUSTRATIVE.gemmShareOfBf16Peak * labPeakFlops('bf16') * peakShare) / sustainedFlopsPerToken();
}

/**
 * Throttled-scenario power: what sustained_load.py would draw at the maximum SM clock (illustrative, above the
 * H100 SXM's 700 W limit, so at the default limit it sits at the cap with SwPowerCap active, as the power card says).
 */
export const SUSTAINED_WANT_WATTS = 800;

/** The throttled scenario's clock share under blocked airflow (sw_thermal_slowdown), before any power cap. */
export const BLOCKED_AIRFLOW_SHARE = 0.92;

/**
 * Where sustained_load.py settles on the lab GPU under a power limit and a thermal clock share, by the site's one
 * power model (src/lib/power-model.ts, the power card's figure): the clock is the lower of what the limit and the
 * heat allow; the power cap is active when it is the limit that holds the clock.
 * @example sustainedUnderLimit(400).clockMHz // ≈ 1,210
 */
export function sustainedUnderLimit(limitWatts: number, thermalShare = 1) {
  const demandShare = SUSTAINED_WANT_WATTS / LAB_GPU.tdpWatts;
  const powerShare = clockShareUnderLimit(LAB_GPU.tdpWatts, demandShare, limitWatts);
  const clockShare = Math.min(powerShare, thermalShare);
  const clockMHz = clockShare * LAB_GPU.maxSmClockMHz;
  return {
    clockShare,
    clockMHz,
    powerCapped: powerShare < thermalShare,
    powerWatts: boardPowerWatts(LAB_GPU.tdpWatts, demandShare, clockShare),
    tokensPerSec: sustainedTokensPerSec(clockMHz),
  };
}
