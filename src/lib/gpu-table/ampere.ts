/** Ampere rows of the GPU table: A10, A10G, A30, A40, the four A100s and the RTX A6000. */
import type { Dtype, GpuSpec } from './types.ts';

/** A100 dense peaks, the same for all four A100s (the datasheet lists one set for PCIe and SXM, 40 and 80 GB). */
const A100_PEAKS: Record<Dtype, number | null> = {
  fp64: 9.7,
  fp64Tensor: 19.5,
  fp32: 19.5,
  tf32: 156,
  bf16: 312,
  fp8: null,
  int8: 624,
};

const A100_NOTE =
  'Peaks at the 1,410 MHz boost clock: 108 SMs × 2,048 dense FP16 FLOPs per SM per clock × 1.41 GHz = 312 TFLOP/s. ' +
  'No FP8 Tensor Cores. Every form factor has the same peaks; memory, bandwidth and power differ per row.';

const a100 = (
  id: GpuSpec['id'],
  label: string,
  nvmlNames: string[],
  memGB: number,
  memBandwidthGBps: number,
  tdpWatts: number,
  extra = '',
): GpuSpec => ({
  id,
  label,
  nvmlNames,
  smCount: 108,
  memGB,
  memBandwidthGBps,
  tdpWatts,
  peakClockMHz: 1410,
  maxSmClockMHz: 1410,
  peakTflops: A100_PEAKS,
  sources: ['A100_DATASHEET', 'AMPERE_WHITEPAPER', 'KLOCKWOOD_A100'],
  note: A100_NOTE + extra,
});

export const AMPERE_ROWS: readonly GpuSpec[] = [
  {
    id: 'a10',
    label: 'A10',
    nvmlNames: ['NVIDIA A10'],
    smCount: 72,
    memGB: 24,
    memBandwidthGBps: 600,
    tdpWatts: 150,
    peakClockMHz: 1695,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 31.2, tf32: 62.5, bf16: 125, fp8: null, int8: 250 },
    sources: ['A10_DATASHEET'],
    note:
      'Dense peaks are the datasheet’s sparse figures halved. Peak clock derived: 125e12 ÷ (72 SMs × 1,024) = ' +
      '1,695 MHz, the published boost clock. FP64 (1/32 of FP32 on GA102) is not in the datasheet: null.',
  },
  {
    id: 'a10g',
    label: 'A10G',
    nvmlNames: ['NVIDIA A10G'],
    smCount: null,
    memGB: 24,
    memBandwidthGBps: 600,
    tdpWatts: null,
    peakClockMHz: null,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 35, tf32: null, bf16: 70, fp8: null, int8: null },
    sources: ['AWS_G5', 'BASETEN_A10G'],
    note:
      'AWS’s variant for G5 instances; NVIDIA publishes no datasheet. Memory and bandwidth match the A10. The FP32 35 ' +
      'and dense FP16/BF16 Tensor 70 TFLOP/s are secondary (Baseten’s comparison) and uncertain; TF32, INT8, TDP, ' +
      'SMs and clocks have no source here: null. Not the A10 row: its tensor peak is about half the A10’s.',
  },
  {
    id: 'a30',
    label: 'A30',
    nvmlNames: ['NVIDIA A30'],
    smCount: 56,
    memGB: 24,
    memBandwidthGBps: 933,
    tdpWatts: 165,
    peakClockMHz: 1440,
    maxSmClockMHz: null,
    peakTflops: { fp64: 5.2, fp64Tensor: 10.3, fp32: 10.3, tf32: 82, bf16: 165, fp8: null, int8: 330 },
    sources: ['A30_DATASHEET'],
    note:
      'Dense peaks from the datasheet (sparse ones are twice). Peak clock derived: 165e12 ÷ (56 SMs × 2,048) = ' +
      '1,440 MHz, the published boost clock.',
  },
  {
    id: 'a40',
    label: 'A40',
    nvmlNames: ['NVIDIA A40'],
    smCount: 84,
    memGB: 48,
    memBandwidthGBps: 696,
    tdpWatts: 300,
    peakClockMHz: 1740,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 37.4, tf32: 74.8, bf16: 149.7, fp8: null, int8: 299.3 },
    sources: ['A40_DATASHEET'],
    note:
      'Read in a transcription of the datasheet (ecer.com). Peak clock derived: 149.7e12 ÷ (84 SMs × 1,024) = ' +
      '1,740 MHz, the published boost clock. FP64 is not in the datasheet: null.',
  },
  a100('a100-pcie-40gb', 'A100 PCIe 40GB', ['NVIDIA A100-PCIE-40GB'], 40, 1555, 250),
  a100(
    'a100-pcie-80gb',
    'A100 PCIe 80GB',
    ['NVIDIA A100 80GB PCIe'],
    80,
    1935,
    300,
    ' The 1,935 GB/s and 300 W are the datasheet’s PCIe 80 GB column; gpu-facts 9.6 marks 1,935 unverified there.',
  ),
  a100('a100-sxm-40gb', 'A100 SXM 40GB', ['NVIDIA A100-SXM4-40GB'], 40, 1555, 400),
  a100(
    'a100-sxm-80gb',
    'A100 SXM 80GB',
    ['NVIDIA A100-SXM4-80GB', 'NVIDIA A100-SXM-80GB'],
    80,
    2039,
    400,
    ' "A100-SXM-80GB" (no 4) is how some early 80 GB boards were named (seen in MLPerf system descriptions).',
  ),
  {
    id: 'rtx-a6000',
    label: 'RTX A6000',
    nvmlNames: ['NVIDIA RTX A6000'],
    smCount: 84,
    memGB: 48,
    memBandwidthGBps: 768,
    tdpWatts: 300,
    peakClockMHz: 1800,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 38.7, tf32: 77.4, bf16: 154.8, fp8: null, int8: 309.7 },
    sources: ['RTX_A6000_PAGE'],
    note:
      'BF16 is the page’s 309.7 TFLOPS (sparse FP16) halved; TF32 and INT8 are derived at the A40’s ratios (same ' +
      'GA102 chip): uncertain. Peak clock: 154.8e12 ÷ (84 SMs × 1,024) = 1,800 MHz, the published boost clock.',
  },
];
