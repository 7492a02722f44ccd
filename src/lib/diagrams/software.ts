/**
 * Software diagrams: which tool reads which counter (gpu-facts 2.12, 2.13, 2.18, 7.6–7.8), and the CPU→GPU launch
 * queue with a sync that drains it (content/cards/training/host-device-syncs.md).
 */
import { arrow, bar, box, label } from './svg.ts';
import type { DiagramDef } from './types.ts';

function toolsSvg(): string {
  const cols = [4, 110, 216];
  const w = 100;
  return (
    label(4, 12, 'tools', 'dg-s') +
    box(cols[0]!, 16, w, 34, ['nvidia-smi', 'nvitop, scripts']) +
    box(cols[1]!, 16, w, 34, ['dcgm-exporter', 'dcgmi']) +
    box(cols[2]!, 16, w, 34, ['Nsight Systems,', 'Compute; PyTorch']) +
    arrow(54, 50, 54, 66) +
    arrow(160, 50, 160, 66) +
    arrow(266, 50, 266, 66) +
    label(4, 62, 'libraries', 'dg-s') +
    box(cols[0]!, 66, w, 30, ['NVML'], 'dg-hi') +
    box(cols[1]!, 66, w, 30, ['DCGM', 'nv-hostengine'], 'dg-hi') +
    box(cols[2]!, 66, w, 30, ['CUPTI and', 'profiler APIs'], 'dg-hi') +
    arrow(54, 96, 54, 112) +
    arrow(160, 96, 160, 112) +
    arrow(266, 96, 266, 112) +
    label(4, 108, 'counters', 'dg-s') +
    box(cols[0]!, 112, w, 46, ['Device', 'GPU-Util, memory,', 'power, clocks']) +
    box(cols[1]!, 112, w, 46, ['Profiling', 'SM, tensor, DRAM,', 'PCIe, NVLink']) +
    box(cols[2]!, 112, w, 46, ['Per kernel', 'timelines and', 'HW counters']) +
    box(cols[0]!, 166, w, 34, ['GPM (NVML)', 'Hopper and newer']) +
    arrow(160, 158, 104, 183) +
    label(140, 186, 'on Hopper+', 'dg-s') +
    label(160, 218, 'DCGM profiling and the Nsight tools contend for', 'dg-s', 'middle') +
    label(160, 232, 'the same counters: dcgmi profile --pause first', 'dg-s', 'middle')
  );
}

/** Which tool reads which counter. */
export const toolCounters: DiagramDef = {
  name: 'tool-counters',
  title: 'Which tool reads which GPU counter',
  desc:
    'Three stacks. nvidia-smi, nvitop and scripts call NVML, which reads the device counters: GPU-Util, memory, ' +
    'power and clocks. dcgm-exporter and dcgmi go through DCGM’s nv-hostengine, which reads the profiling counters: ' +
    'SM, tensor and DRAM activity, PCIe and NVLink bytes; on Hopper and newer DCGM reads them through NVML’s GPM ' +
    'metrics. Nsight Systems, Nsight Compute and the PyTorch profiler use CUPTI and the profiler interfaces for ' +
    'per-kernel timelines and hardware counters. DCGM profiling and the Nsight tools contend for the same counters, ' +
    'so pause DCGM profiling with dcgmi profile --pause while profiling.',
  caption: 'Three stacks read a GPU: NVML for device counters, DCGM for profiling meters, profilers per kernel.',
  height: 240,
  svg: toolsSvg(),
};

function launchSvg(): string {
  const x0 = 44;
  let svg = label(4, 30, 'CPU', 'dg-bold') + label(4, 108, 'GPU', 'dg-bold') + label(4, 70, 'queue', 'dg-s');
  // The CPU launches six kernels quickly, then a sync blocks it until the queue drains.
  for (let i = 0; i < 6; i++) svg += bar(x0 + i * 16, 18, 14, 18, 'dg-b');
  svg +=
    bar(x0 + 96, 18, 98, 18, 'dg-soft', '.item() waits') + bar(240, 18, 14, 18, 'dg-b') + bar(256, 18, 14, 18, 'dg-b');
  // The GPU runs each kernel once the one before it ends.
  for (let i = 0; i < 6; i++) svg += bar(60 + i * 30, 96, 28, 18, 'dg-a', `k${i + 1}`);
  svg +=
    label(246, 110, 'idle', 'dg-s', 'middle') + bar(256, 96, 28, 18, 'dg-a', 'k7') + bar(286, 96, 28, 18, 'dg-a', 'k8');
  for (const [cx, kx] of [
    [x0 + 7, 62],
    [x0 + 55, 152],
    [x0 + 87, 212],
    [247, 258],
  ] as const)
    svg += arrow(cx, 36, kx, 96);
  svg +=
    label(x0, 136, 'Launches queue up while the CPU runs ahead.', 'dg-s') +
    label(x0, 150, 'A sync waits for the queue to drain (k6 ends);', 'dg-s') +
    label(x0, 164, 'the GPU then idles until the next launch.', 'dg-s');
  return svg;
}

/** The CPU→GPU launch queue and what a sync does to it. */
export const launchQueue: DiagramDef = {
  name: 'launch-queue',
  title: 'The CPU to GPU launch queue, and a sync',
  desc:
    'Time runs left to right. The CPU launches kernels k1 to k6 in quick succession; each waits in the stream’s ' +
    'queue and the GPU runs them back to back, so it stays busy while the CPU runs ahead. Then the CPU calls ' +
    '.item(), which blocks until the GPU has finished k6 and the queue is empty. The GPU then sits idle until the ' +
    'CPU launches k7.',
  caption: 'Kernel launches queue up ahead of the GPU; a host-device sync empties the queue and leaves a gap.',
  height: 172,
  svg: launchSvg(),
};
