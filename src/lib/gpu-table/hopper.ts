/** Hopper rows of the GPU table: H100 PCIe, SXM and NVL, H200 SXM and NVL, and the two GH200 superchips. */
import type { Dtype, GpuSpec } from './types.ts';

/** Dense peaks of Hopper at SXM clocks (H100 SXM, H200 SXM, GH200; gpu-facts 9.1, 9.4). */
const HOPPER_SXM_PEAKS: Record<Dtype, number> = {
  fp64: 33.5,
  fp64Tensor: 66.9,
  fp32: 66.9,
  tf32: 494.7,
  bf16: 989.4,
  fp8: 1978.9,
  int8: 1978.9,
};

/** Dense peaks of the NVL boards (H100 NVL, H200 NVL): the datasheets' sparse 835 / 1,671 / 3,341 halved. */
const HOPPER_NVL_PEAKS: Record<Dtype, number> = {
  fp64: 30,
  fp64Tensor: 60,
  fp32: 60,
  tf32: 417.5,
  bf16: 835.5,
  fp8: 1670.5,
  int8: 1670.5,
};

const SXM_CLOCK_NOTE =
  'Peaks are defined at 1,830 MHz: 989.4e12 ÷ (132 SMs × 4,096 dense FP16 FLOPs per SM per clock) = 1.83 GHz; ' +
  '1,980 MHz is the maximum SM clock, so tensor throughput scales against 1,830, not 1,980 (gpu-facts 9.1).';

const NVL_CLOCK_NOTE =
  'Peak clock derived, not published: 835.5e12 ÷ (132 SMs × 4,096) = 1,545 MHz, assuming 132 SMs as the SXM part ' +
  '(secondary); uncertain.';

const gh200 = (id: GpuSpec['id'], label: string, names: string[], memGB: number, bw: number, mem: string): GpuSpec => ({
  id,
  label,
  nvmlNames: names,
  smCount: 132,
  memGB,
  memBandwidthGBps: bw,
  tdpWatts: null,
  peakClockMHz: 1830,
  maxSmClockMHz: 1980,
  peakTflops: HOPPER_SXM_PEAKS,
  sources: ['GH200_DATASHEET', 'KLOCKWOOD_H100'],
  note:
    `The GPU of the Grace Hopper superchip, ${mem}: not an H200 (141 GB, 4.8 TB/s). Its dense peaks are Hopper ` +
    'SXM’s (the datasheet rounds BF16 to 990). No GPU TDP: the datasheet gives 450–1,000 W for the whole module ' +
    '(CPU, GPU and memory), so power is null. 132 SMs and the 1,980 MHz max clock are secondary (a GH200 run log). ' +
    SXM_CLOCK_NOTE,
});

export const HOPPER_ROWS: readonly GpuSpec[] = [
  {
    id: 'h100-pcie',
    label: 'H100 PCIe',
    nvmlNames: ['NVIDIA H100 PCIe'],
    smCount: 114,
    memGB: 80,
    memBandwidthGBps: 2000,
    tdpWatts: 350,
    peakClockMHz: 1620,
    maxSmClockMHz: null,
    peakTflops: { fp64: 26, fp64Tensor: 51, fp32: 51, tf32: 378, bf16: 756, fp8: 1513, int8: 1513 },
    sources: ['H100_PCIE_BRIEF', 'HOPPER_WHITEPAPER', 'HPCTECH_H100'],
    note:
      'Dense peaks are the sparse figures halved (gpu-facts 9.3); 300–350 W, the upper bound here. Peak clock ' +
      'derived: 756e12 ÷ (114 SMs × 4,096) = 1,619 MHz ≈ 1,620; the max SM clock has no source here.',
  },
  {
    id: 'h100-sxm',
    label: 'H100 SXM',
    nvmlNames: ['NVIDIA H100 80GB HBM3'],
    smCount: 132,
    memGB: 80,
    memBandwidthGBps: 3350,
    tdpWatts: 700,
    peakClockMHz: 1830,
    maxSmClockMHz: 1980,
    peakTflops: HOPPER_SXM_PEAKS,
    sources: ['H100_DATASHEET', 'HOPPER_WHITEPAPER', 'KLOCKWOOD_H100', 'HPCTECH_H100'],
    note: SXM_CLOCK_NOTE,
  },
  {
    id: 'h100-nvl',
    label: 'H100 NVL',
    nvmlNames: ['NVIDIA H100 NVL'],
    smCount: 132,
    memGB: 94,
    memBandwidthGBps: 3900,
    tdpWatts: 400,
    peakClockMHz: 1545,
    maxSmClockMHz: null,
    peakTflops: HOPPER_NVL_PEAKS,
    sources: ['H100_DATASHEET'],
    note:
      'A PCIe board (bridged in pairs), not the SXM part: 94 GB HBM3, 3.9 TB/s, 350–400 W (the upper bound here), ' +
      'dense BF16 835.5, about 16% below SXM. ' +
      NVL_CLOCK_NOTE,
  },
  {
    id: 'h200',
    label: 'H200 SXM',
    nvmlNames: ['NVIDIA H200'],
    smCount: 132,
    memGB: 141,
    memBandwidthGBps: 4800,
    tdpWatts: 700,
    peakClockMHz: 1830,
    maxSmClockMHz: 1980,
    peakTflops: HOPPER_SXM_PEAKS,
    sources: ['H200_PAGE', 'KLOCKWOOD_H100'],
    note: 'Hopper SXM compute with 141 GB HBM3e at 4.8 TB/s, up to 700 W. ' + SXM_CLOCK_NOTE,
  },
  {
    id: 'h200-nvl',
    label: 'H200 NVL',
    nvmlNames: ['NVIDIA H200 NVL'],
    smCount: 132,
    memGB: 141,
    memBandwidthGBps: 4800,
    tdpWatts: 600,
    peakClockMHz: 1545,
    maxSmClockMHz: null,
    peakTflops: HOPPER_NVL_PEAKS,
    sources: ['H200_PAGE'],
    note: 'A PCIe board: the H200’s memory with NVL compute (dense BF16 835.5), up to 600 W. ' + NVL_CLOCK_NOTE,
  },
  gh200(
    'gh200-96gb',
    'GH200 96GB HBM3',
    ['NVIDIA GH200 480GB'],
    96,
    4000,
    '96 GB HBM3 at 4 TB/s beside 480 GB LPDDR5X',
  ),
  gh200('gh200-144gb', 'GH200 144GB HBM3e', ['NVIDIA GH200 144G HBM3e'], 144, 4900, '144 GB HBM3e at 4.9 TB/s'),
];
