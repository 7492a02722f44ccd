/**
 * The sources the GPU table cites, one constant each, NVIDIA's own documents first. This project has no network:
 * no NVIDIA page was fetched by it. Where a stored copy or transcription of a page was read (the search corpus), the
 * row's note names it; a number neither read there nor derived is marked uncertain in the row's note.
 */
import type { GpuSource, SourceKey } from './types.ts';

const nv = (title: string, url: string, covers: string, primary: GpuSource['primary'] = 'datasheet'): GpuSource => ({
  title,
  url,
  primary,
  covers,
});

export const AMPERE_WHITEPAPER = nv(
  'NVIDIA A100 Tensor Core GPU Architecture (Ampere whitepaper)',
  'https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf',
  'A100 SMs (108), boost clock 1,410 MHz, dense and sparse peaks',
  'whitepaper',
);
export const A100_DATASHEET = nv(
  'NVIDIA A100 Tensor Core GPU datasheet',
  'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
  'peaks (sparse marked *), memory and bandwidth and max TDP per form factor (PCIe 40/80 GB, SXM 40/80 GB)',
);
export const KLOCKWOOD_A100 = nv(
  'Glenn K. Lockwood: NVIDIA A100 (notes from the datasheet and whitepaper)',
  'https://glennklockwood.com/garden/processors/A100',
  'dense peaks, 1,555 / 2,039 GB/s, 400 W SXM (gpu-facts 9.5, 9.6)',
  'secondary',
);
export const A10_DATASHEET = nv(
  'NVIDIA A10 Tensor Core GPU datasheet',
  'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf',
  'FP32, TF32, BF16, INT8 peaks (sparse marked *), 24 GB GDDR6, 600 GB/s, 150 W',
);
export const BASETEN_A10G = nv(
  'Baseten: NVIDIA A10 vs A10G for ML model inference',
  'https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/',
  'A10G: same 24 GB and 600 GB/s as A10, less tensor and more FP32 throughput',
  'secondary',
);
export const AWS_G5 = nv(
  'AWS: Amazon EC2 G5 instances (NVIDIA A10G Tensor Core GPUs)',
  'https://aws.amazon.com/ec2/instance-types/g5/',
  'A10G with 24 GB per GPU',
  'vendor page',
);
export const A30_DATASHEET = nv(
  'NVIDIA A30 Tensor Core GPU datasheet',
  'https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf',
  'FP64, FP64 Tensor, FP32, TF32, BF16, INT8 peaks (sparse marked *), 24 GB HBM2, 933 GB/s, 165 W',
);
export const A40_DATASHEET = nv(
  'NVIDIA A40 datasheet',
  'https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf',
  'FP32 37.4, TF32 74.8, BF16 149.7, INT8 299.3 dense; 48 GB GDDR6, 696 GB/s, 300 W',
);
export const RTX_A6000_PAGE = nv(
  'NVIDIA RTX A6000 product page and datasheet',
  'https://www.nvidia.com/en-us/design-visualization/rtx-a6000/',
  '48 GB GDDR6, 768 GB/s, 300 W, FP32 38.7, Tensor 309.7 TFLOPS (sparse FP16)',
  'vendor page',
);
export const H100_DATASHEET = nv(
  'NVIDIA H100 Tensor Core GPU datasheet',
  'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet',
  'H100 SXM and NVL columns: peaks (sparse marked *), memory, bandwidth, max TDP',
);
export const H100_PCIE_BRIEF = nv(
  'NVIDIA H100 PCIe GPU Product Brief (PB-11133-001_v02)',
  'https://manuals.plus/m/56b0c3ef7d0a1c470c0af8f05a0bd1f29a778007472ba941201fbbb185c9bccd',
  '350 W maximum TDP, over 2,000 GB/s, 114 SMs (a verbatim copy of the brief)',
);
export const HOPPER_WHITEPAPER = nv(
  'NVIDIA H100 Tensor Core GPU Architecture (Hopper whitepaper)',
  'https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper',
  '132 SMs (SXM5), 114 (PCIe), per-SM Tensor Core rates',
  'whitepaper',
);
export const KLOCKWOOD_H100 = nv(
  'Glenn K. Lockwood: NVIDIA H100 (notes from the Hopper whitepaper)',
  'https://glennklockwood.com/garden/processors/h100',
  'dense peaks, 1,830 MHz boost (peak) and 1,980 MHz max SM clock (gpu-facts 9.1)',
  'secondary',
);
export const HPCTECH_H100 = nv(
  'HPC Tech: NVIDIA H100 spec table',
  'https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html',
  'SXM and PCIe peaks ("shown with sparsity; 1/2 lower without"), 80 GB, 3.35 / 2.0 TB/s (gpu-facts 9.2, 9.3)',
  'secondary',
);
export const H200_PAGE = nv(
  'NVIDIA H200 Tensor Core GPU product page (H200 SXM and H200 NVL columns)',
  'https://www.nvidia.com/en-us/data-center/h200/',
  'peaks (sparse marked *), 141 GB HBM3e, 4.8 TB/s, up to 700 W (SXM) / 600 W (NVL)',
  'vendor page',
);
export const GH200_DATASHEET = nv(
  'NVIDIA GH200 Grace Hopper Superchip datasheet',
  'https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip',
  'GPU peaks (sparse marked *), 96 GB HBM3 at 4 TB/s or 144 GB HBM3e at 4.9 TB/s, module power 450–1,000 W',
);
export const L4_DATASHEET = nv(
  'NVIDIA L4 Tensor Core GPU datasheet (copy hosted by Cisco)',
  'https://www.cisco.com/c/dam/en/us/products/collateral/servers-unified-computing/ucs-c-series-rack-servers/nvidia-l4-gpu.pdf',
  'FP32 30.3; TF32 120*, BF16 242*, FP8 485*, INT8 485* (sparse); 24 GB GDDR6, 300 GB/s, 72 W',
);
export const L40_DATASHEET = nv(
  'NVIDIA L40 datasheet',
  'https://images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf',
  'FP32 90.5; TF32 90.5, BF16 181.05, FP8 362, INT8 362 dense; 48 GB GDDR6, 864 GB/s, 300 W',
);
export const L40S_DATASHEET = nv(
  'NVIDIA L40S datasheet',
  'https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413',
  'FP32 91.6; TF32 183, BF16 362.05, FP8 733 dense (INT8 as FP8); 48 GB GDDR6, 864 GB/s, 350 W',
);
export const L40_L40S_TABLE = nv(
  'Mullet: NVIDIA L40 / L40S specification table (transcribes the two datasheets side by side)',
  'https://www.mullet.se/product.html?product_id=355414',
  'the L40 and L40S numbers above, read in this transcription',
  'secondary',
);
export const RTX_6000_ADA_DATASHEET = nv(
  'NVIDIA RTX 6000 Ada Generation datasheet',
  'https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx-6000/proviz-print-rtx6000-datasheet-web-2504660.pdf',
  '48 GB GDDR6, 960 GB/s, 300 W, FP32 91.1, Tensor 1,457 TFLOPS (FP8 with sparsity)',
);
export const ADA_WHITEPAPER = nv(
  'NVIDIA Ada GPU Architecture whitepaper (appendix tables for RTX 4090 and RTX 6000 Ada)',
  'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf',
  'SMs, boost clocks, dense and sparse Tensor peaks with FP16 and FP32 accumulate',
  'whitepaper',
);
export const BLACKWELL_DATASHEET = nv(
  'NVIDIA Blackwell datasheet (HGX B200 column)',
  'https://resources.nvidia.com/en-us-blackwell-architecture/blackwell-datasheet',
  'HGX B200 per-GPU memory (180 GB), 8 TB/s, 1,000 W, sparse peaks',
);
export const KLOCKWOOD_B200 = nv(
  'Glenn K. Lockwood: NVIDIA B200',
  'https://glennklockwood.com/garden/processors/B200',
  'HGX B200 at 1,000 W: FP64 40, FP32 80, TF32 1,100, BF16 2,250, FP8 4,500, INT8 4,500 dense; 8 TB/s',
  'secondary',
);

/** Every source by its key: the rows cite keys, so code that needs only the numbers never loads these strings. */
export const GPU_SOURCES: Record<SourceKey, GpuSource> = {
  AMPERE_WHITEPAPER,
  A100_DATASHEET,
  KLOCKWOOD_A100,
  A10_DATASHEET,
  BASETEN_A10G,
  AWS_G5,
  A30_DATASHEET,
  A40_DATASHEET,
  RTX_A6000_PAGE,
  H100_DATASHEET,
  H100_PCIE_BRIEF,
  HOPPER_WHITEPAPER,
  KLOCKWOOD_H100,
  HPCTECH_H100,
  H200_PAGE,
  GH200_DATASHEET,
  L4_DATASHEET,
  L40_DATASHEET,
  L40S_DATASHEET,
  L40_L40S_TABLE,
  RTX_6000_ADA_DATASHEET,
  ADA_WHITEPAPER,
  BLACKWELL_DATASHEET,
  KLOCKWOOD_B200,
};
