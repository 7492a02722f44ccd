/**
 * Hardware diagrams: a GPU's parts and the meter that watches each (gpu-facts 2.2–2.10, 9.1, 9.2, 9.7, 9.8), and a
 * multi-node job's communication paths (content/cards/training/infiniband-roce-gpudirect-rdma.md), and Blackwell's
 * block-scaled number formats (content/cards/training/blackwell-microscaling-nvl72.md).
 */
import { arrow, bar, box, label, line } from './svg.ts';
import type { DiagramDef } from './types.ts';

function anatomySvg(): string {
  let svg =
    `<rect x="4" y="4" width="312" height="176" rx="6" class="dg-soft"/>` +
    label(12, 18, 'H100 SXM package', 'dg-bold');
  // Two rows of SMs, each with a Tensor Core block; the last slot says there are many more.
  for (let row = 0; row < 2; row++)
    for (let col = 0; col < 6; col++) {
      const x = 12 + col * 50;
      const y = 26 + row * 34;
      if (row === 1 && col === 5) {
        svg += label(x + 22, y + 19, '… ×132', 'dg-bold', 'middle');
        continue;
      }
      svg +=
        `<rect x="${x}" y="${y}" width="44" height="28" rx="3" class="dg-box"/>` +
        label(x + 4, y + 12, 'SM') +
        `<rect x="${x + 24}" y="${y + 14}" width="16" height="10" class="dg-a"/>` +
        label(x + 32, y + 22.5, 'TC', 'dg-on dg-xs', 'middle');
    }
  svg +=
    label(12, 104, '132 SMs, 4 Tensor Cores (TC) each: SM and tensor activity', 'dg-s') +
    box(12, 110, 296, 18, ['L2 cache, shared by every SM'], 'dg-box');
  for (let i = 0; i < 5; i++) svg += box(12 + i * 60, 136, 56, 20, ['HBM3'], 'dg-hi');
  svg += label(12, 172, '80 GB HBM3 at 3.35 TB/s: DRAM activity', 'dg-s');
  // Links out of the package.
  svg +=
    arrow(80, 180, 80, 204, { both: true }) +
    label(86, 196, 'PCIe', 'dg-bold') +
    arrow(240, 180, 240, 204, { both: true }) +
    label(246, 196, 'NVLink', 'dg-bold') +
    box(4, 206, 150, 38, ['CPU, NIC, storage', 'Gen5: ~63 GB/s each way']) +
    box(166, 206, 150, 38, ['Other GPUs', 'NVLink 4: 900 GB/s in all']);
  return svg;
}

/** A GPU's anatomy, with the meter that watches each part. */
export const gpuAnatomy: DiagramDef = {
  name: 'gpu-anatomy',
  title: 'Anatomy of an H100 SXM GPU',
  desc:
    'The H100 SXM package holds 132 streaming multiprocessors (SMs), each with 4 Tensor Cores; an L2 cache shared by ' +
    'every SM; and 80 GB of HBM3 memory at 3.35 TB/s. PCIe Gen5 x16, about 63 GB/s each way, links it to the CPU, ' +
    'network cards and storage; NVLink 4, 900 GB/s in all, links it to other GPUs. SM activity and tensor activity ' +
    'watch the SMs, DRAM activity watches HBM, and the PCIe and NVLink byte counters watch the links.',
  caption: 'The parts of a GPU that DCGM’s profiling meters watch (H100 SXM numbers from the spec table).',
  height: 248,
  svg: anatomySvg(),
};

function multiNodeSvg(): string {
  let svg = '';
  for (const [i, x0] of [4, 166].entries()) {
    svg +=
      `<rect x="${x0}" y="4" width="150" height="124" rx="6" class="dg-soft"/>` +
      label(x0 + 8, 18, `Node ${i + 1}`, 'dg-bold');
    for (let g = 0; g < 4; g++) {
      const x = x0 + 8 + g * 35;
      svg +=
        box(x, 26, 30, 24, ['GPU'], 'dg-hi') +
        line(x + 15, 50, x + 15, 58) +
        arrow(x + 15, 74, x + 15, 100, { both: true }) +
        box(x, 100, 30, 22, ['NIC']) +
        arrow(x + 15, 122, x + 15, 156, { both: true });
    }
    svg += box(x0 + 8, 58, 134, 16, ['NVLink / NVSwitch'], 'dg-box');
  }
  svg +=
    box(4, 156, 312, 22, ['InfiniBand or RoCE switches'], 'dg-box') +
    label(160, 196, 'GPU to its own NIC over PCIe: GPUDirect RDMA', 'dg-s', 'middle') +
    label(160, 210, 'Inside a node: NVLink, 450 GB/s each way per H100', 'dg-s', 'middle') +
    label(160, 224, 'Between nodes: an NDR port, 50 GB/s each way', 'dg-s', 'middle');
  return svg;
}

/** A multi-node job's communication: NVLink inside each node, one NIC per GPU across nodes. */
export const multiNode: DiagramDef = {
  name: 'multi-node',
  title: 'How GPUs in a multi-node job talk to each other',
  desc:
    'Two nodes of four GPUs each. Inside a node the GPUs talk over NVLink through NVSwitch, 450 GB/s each way per ' +
    'H100. Many training nodes also give each GPU its own network card behind the same PCIe switch; with GPUDirect RDMA the card reads ' +
    'and writes GPU memory directly, without a copy through host memory. The cards connect through InfiniBand or ' +
    'RoCE switches to the other node, at 50 GB/s each way for an NDR port: about 9 times less than NVLink.',
  caption:
    'A multi-node job: heavy traffic stays on NVLink inside a node; what crosses nodes goes through one NIC per GPU.',
  height: 232,
  svg: multiNodeSvg(),
};

/** A row of `n` element cells from x to x + w, and a bracket under it naming them. */
function blockCells(x: number, y: number, w: number, n: number, name: string): string {
  const cellW = w / n;
  let svg = '';
  for (let i = 0; i < n; i++) svg += bar(x + i * cellW, y, cellW, 18, 'dg-soft');
  return (
    svg +
    line(x, y + 22, x + w, y + 22) +
    line(x, y + 19, x, y + 22) +
    line(x + w, y + 19, x + w, y + 22) +
    label(x + w / 2, y + 34, name, 'dg-s', 'middle')
  );
}

/** Bits per value: [name, element bits, scale bits per value, how it adds up]. */
const BITS_ROWS: readonly (readonly [string, number, number, string])[] = [
  ['BF16', 16, 0, '16'],
  ['MXFP8', 8, 8 / 32, '8.25 = 8 + 8/32'],
  ['NVFP4', 4, 8 / 16, '4.5 = 4 + 8/16'],
  ['MXFP4', 4, 8 / 32, '4.25 = 4 + 8/32'],
];

function microscalingSvg(): string {
  // OCP MX: one E8M0 scale, then 32 elements.
  let svg =
    label(4, 12, 'OCP MX: 32 values share one E8M0 scale', 'dg-bold') +
    box(4, 18, 40, 18, ['E8M0'], 'dg-hi') +
    blockCells(48, 18, 268, 32, '32 elements: FP8, FP6 or FP4 (E2M1)') +
    label(4, 66, 'E8M0: a power of two, 8 bits, per block', 'dg-s');
  // NVFP4: a per-tensor FP32 scale over blocks of 16, each with an E4M3 scale.
  svg +=
    label(4, 90, 'NVFP4: 16 values share one E4M3 scale', 'dg-bold') +
    box(4, 96, 312, 18, ['× one FP32 scale for the whole tensor'], 'dg-soft');
  for (const x of [4, 162])
    svg += box(x, 120, 36, 18, ['E4M3'], 'dg-hi') + blockCells(x + 38, 120, 116, 16, '16 × E2M1');
  // Bits per value: element bits (accent) plus the block scale's share (an end segment in the text colour).
  svg += label(4, 182, 'Bits per value', 'dg-bold');
  const pxPerBit = 12;
  for (const [i, [name, elemBits, scaleBits, sum]] of BITS_ROWS.entries()) {
    const y = 190 + i * 20;
    const w = elemBits * pxPerBit;
    svg += label(4, y + 12, name) + bar(52, y, w, 16, 'dg-a');
    if (scaleBits) svg += bar(52 + w, y, scaleBits * pxPerBit, 16, 'dg-b');
    svg += label(52 + (elemBits + scaleBits) * pxPerBit + 4, y + 12, sum, 'dg-s');
  }
  svg += label(4, 282, 'End segment: the block scale’s 8 bits, shared by its block.', 'dg-s');
  // Where a block's largest value lands on the E2M1 grid (0, 0.5, 1, 1.5, 2, 3, 4, 6).
  const xAt = (v: number) => 20 + v * 35;
  svg +=
    label(4, 306, 'A block’s largest value on the FP4 grid', 'dg-bold') +
    bar(xAt(4), 314, xAt(8) - xAt(4), 16, 'dg-soft', 'E8M0: 4 to 8') +
    line(xAt(0), 344, xAt(8), 344);
  for (const v of [0, 0.5, 1, 1.5, 2, 3, 4, 6]) svg += line(xAt(v), 338, xAt(v), 344);
  for (const v of [0, 1, 2, 3, 4, 6]) svg += label(xAt(v), 357, String(v), 'dg-s', 'middle');
  svg +=
    line(xAt(8), 338, xAt(8), 344, true) +
    label(xAt(8), 357, '8', 'dg-s', 'middle') +
    label(4, 376, 'Past 6 it clamps to 6. An E4M3 scale puts it near 6.', 'dg-s');
  return svg;
}

/** OCP MX and NVFP4 block scaling, and what each costs in bits per value. */
export const microscalingBlocks: DiagramDef = {
  name: 'microscaling-blocks',
  title: 'Microscaling: one scale per small block of values',
  desc:
    'Top: an OCP MX block, 32 elements in FP8, FP6 or FP4 (E2M1) that share one E8M0 scale, a power of two stored ' +
    'in 8 bits. Middle: NVFP4, two blocks of 16 E2M1 elements, each with its own E4M3 scale, under one FP32 scale ' +
    'for the whole tensor. Then bars of bits per value: BF16 16; MXFP8 8.25, that is 8 plus 8 scale bits over 32 ' +
    'values; NVFP4 4.5, 4 plus 8 over 16; MXFP4 4.25, 4 plus 8 over 32. Bottom: the FP4 (E2M1) grid has the ' +
    'values 0, 0.5, 1, 1.5, 2, 3, 4 and 6. A power-of-two scale leaves a block’s largest value anywhere from 4 to ' +
    '8, and past 6 it clamps to 6; an E4M3 scale can place it close to 6.',
  caption:
    'A scale per block of 32 (MX) or 16 (NVFP4) values keeps small values in range for a quarter or half a bit more.',
  height: 382,
  svg: microscalingSvg(),
};
