/** Ada and Blackwell rows of the GPU table: L4, L40, L40S, RTX 6000 Ada, GeForce RTX 4090 and B200. */
import type { GpuSpec } from './types.ts';

export const ADA_BLACKWELL_ROWS: readonly GpuSpec[] = [
  {
    id: 'l4',
    label: 'L4',
    nvmlNames: ['NVIDIA L4'],
    smCount: null,
    memGB: 24,
    memBandwidthGBps: 300,
    tdpWatts: 72,
    peakClockMHz: null,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 30.3, tf32: 60, bf16: 121, fp8: 242.5, int8: 242.5 },
    sources: ['L4_DATASHEET'],
    note:
      'Dense peaks are the datasheet’s sparse figures halved (as content/cards/serving/right-sizing-b200-gh200-l4-l40s.md ' +
      'does). The datasheet gives no FP64, SM count or clock: null.',
  },
  {
    id: 'l40',
    label: 'L40',
    nvmlNames: ['NVIDIA L40'],
    smCount: 142,
    memGB: 48,
    memBandwidthGBps: 864,
    tdpWatts: 300,
    peakClockMHz: 2490,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 90.5, tf32: 90.5, bf16: 181.05, fp8: 362, int8: 362 },
    sources: ['L40_DATASHEET', 'L40_L40S_TABLE'],
    note:
      'Half the L40S’s tensor rate with FP32 accumulate, same memory. 142 SMs = 18,176 CUDA cores ÷ 128. Peak clock ' +
      'derived: 181.05e12 ÷ (142 × 512) = 2,490 MHz.',
  },
  {
    id: 'l40s',
    label: 'L40S',
    nvmlNames: ['NVIDIA L40S'],
    smCount: 142,
    memGB: 48,
    memBandwidthGBps: 864,
    tdpWatts: 350,
    peakClockMHz: 2490,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 91.6, tf32: 183, bf16: 362.05, fp8: 733, int8: 733 },
    sources: ['L40S_DATASHEET', 'L40_L40S_TABLE'],
    note:
      'Dense peaks from the datasheet (sparse twice); its INT8 row is blank in the transcription read, so INT8 is ' +
      'taken equal to FP8 as on the L40: uncertain. Peak clock derived: 362.05e12 ÷ (142 × 1,024) = 2,490 MHz.',
  },
  {
    id: 'rtx-6000-ada',
    label: 'RTX 6000 Ada',
    nvmlNames: ['NVIDIA RTX 6000 Ada Generation'],
    smCount: 142,
    memGB: 48,
    memBandwidthGBps: 960,
    tdpWatts: 300,
    peakClockMHz: 2505,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 91.1, tf32: 182.1, bf16: 364.2, fp8: 728.5, int8: 728.5 },
    sources: ['RTX_6000_ADA_DATASHEET', 'ADA_WHITEPAPER'],
    note:
      'Datasheet headline 1,457 TFLOPS is FP8 with sparsity; dense FP8 728.5, BF16 364.2 = 142 SMs × 1,024 × ' +
      '2.505 GHz (the boost clock). Not the older Turing "Quadro RTX 6000".',
  },
  {
    id: 'rtx-4090',
    label: 'GeForce RTX 4090',
    nvmlNames: ['NVIDIA GeForce RTX 4090'],
    smCount: 128,
    memGB: 24,
    memBandwidthGBps: 1008,
    tdpWatts: 450,
    peakClockMHz: 2520,
    maxSmClockMHz: null,
    peakTflops: { fp64: null, fp64Tensor: null, fp32: 82.6, tf32: 82.6, bf16: 165.2, fp8: 330.3, int8: 660.6 },
    sources: ['ADA_WHITEPAPER'],
    note:
      'GeForce runs FP16/BF16 with FP32 accumulate at half rate: 165.2 = 128 SMs × 512 × 2.52 GHz (330.3 with FP16 ' +
      'accumulate). FP8 is also the FP32-accumulate rate. Boost clocks above 2,520 MHz raise real throughput.',
  },
  {
    id: 'b200',
    label: 'B200 (HGX)',
    nvmlNames: ['NVIDIA B200'],
    smCount: null,
    memGB: 180,
    memBandwidthGBps: 8000,
    tdpWatts: 1000,
    peakClockMHz: null,
    maxSmClockMHz: null,
    peakTflops: { fp64: 40, fp64Tensor: 40, fp32: 80, tf32: 1100, bf16: 2250, fp8: 4500, int8: 4500 },
    sources: ['BLACKWELL_DATASHEET', 'KLOCKWOOD_B200'],
    note:
      'HGX B200 at 1,000 W (a GB200 B200 at 1,200 W is faster: BF16 2,500). The die has 192 GB; HGX boards expose ' +
      '180 GB. FP64 is 37–40 depending on the source: uncertain. FP4 (9,000 dense) is not a column here. NVIDIA ' +
      'publishes no SM count or clocks yet: null.',
  },
];
