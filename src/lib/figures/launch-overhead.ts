/**
 * Launch overhead and CUDA Graphs: K launches at c µs of CPU each against the GPU time of their kernels
 * (content/cards/training/launch-overhead-cuda-graphs.md). A graph submits the whole step with one launch.
 */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Step time (µs) and GPU-Util (0–1), idealised: the slower of CPU launching and GPU computing sets the pace. */
export function launchBound(kernelUs: number, launchUs: number, kernels: number, graphs: boolean) {
  const gpuUs = kernels * kernelUs;
  const cpuUs = graphs ? launchUs : kernels * launchUs;
  const stepUs = graphs ? launchUs + gpuUs : Math.max(cpuUs, gpuUs);
  return { gpuUs, cpuUs, stepUs, gpuUtil: gpuUs / stepUs };
}

export const figure: FigureDef = {
  name: 'launch-overhead',
  caption: 'Launch overhead and CUDA Graphs: CPU launches against GPU kernels in one training step',
  controls: [
    { kind: 'range', id: 'kernelUs', label: 'GPU time per kernel', unit: 'µs', min: 1, max: 200, step: 1, value: 5 },
    { kind: 'range', id: 'launchUs', label: 'CPU time per launch', unit: 'µs', min: 1, max: 50, step: 1, value: 8 },
    { kind: 'range', id: 'kernels', label: 'Kernels per step', unit: '', min: 10, max: 5000, step: 10, value: 1200 },
    {
      kind: 'select',
      id: 'graphs',
      label: 'CUDA Graphs',
      options: [
        { value: 'off', label: 'Off: one launch per kernel' },
        { value: 'on', label: 'On: one launch per step' },
      ],
      value: 'off',
    },
  ],
  view(v: Values) {
    const kernelUs = Number(v['kernelUs']);
    const launchUs = Number(v['launchUs']);
    const kernels = Number(v['kernels']);
    const graphs = v['graphs'] === 'on';
    const r = launchBound(kernelUs, launchUs, kernels, graphs);
    // The first 20 kernels of the step on a shared time axis.
    const n = Math.min(20, kernels);
    const x0 = 8;
    const w = 304;
    const span = graphs ? launchUs + n * kernelUs : n * Math.max(launchUs, kernelUs) + kernelUs;
    const sx = w / span;
    let cpu = '';
    let gpu = '';
    for (let i = 0; i < n; i++) {
      if (!graphs) cpu += rect(x0 + i * launchUs * sx, 30, launchUs * sx - 1, 30, 'fig-b');
      const start = graphs ? launchUs + i * kernelUs : Math.max((i + 1) * launchUs, i * kernelUs + launchUs);
      gpu += rect(x0 + start * sx, 96, kernelUs * sx - 1, 30, 'fig-a');
    }
    if (graphs) cpu = rect(x0, 30, launchUs * sx - 1, 30, 'fig-b');
    const svg =
      text(x0, 22, graphs ? 'CPU: one graph launch' : `CPU: ${fmt(n)} launches`) +
      rect(x0, 30, w, 30, 'fig-track') +
      cpu +
      text(x0, 88, `GPU: the same ${fmt(n)} kernels`) +
      rect(x0, 96, w, 30, 'fig-track') +
      gpu +
      text(x0, 150, `step ${fmt(r.stepUs / 1000)} ms · GPU-Util ${pct(r.gpuUtil)}`, 'fig-t fig-big');
    const who = graphs
      ? `the one launch adds ${fmt(launchUs)} µs`
      : r.cpuUs > r.gpuUs
        ? 'the CPU launching kernels sets the pace'
        : r.cpuUs < r.gpuUs
          ? 'the GPU sets the pace'
          : 'launching and computing take equally long';
    const how = graphs ? 'One graph launch per step' : `${fmt(kernels)} launches at ${fmt(launchUs)} µs each`;
    const readout =
      `${how}: a step takes ${fmt(r.stepUs / 1000)} ms for ${fmt(r.gpuUs / 1000)} ms of GPU work, ` +
      `GPU-Util at most ${pct(r.gpuUtil)}; ${who}.`;
    return { svg, readout };
  },
};
