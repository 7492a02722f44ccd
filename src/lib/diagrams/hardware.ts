/**
 * Hardware diagrams: a GPU's parts and the meter that watches each (gpu-facts 2.2–2.10, 9.1, 9.2, 9.7, 9.8), and a
 * multi-node job's communication paths (content/cards/training/infiniband-roce-gpudirect-rdma.md).
 */
import { arrow, box, label, line } from './svg.ts';
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
