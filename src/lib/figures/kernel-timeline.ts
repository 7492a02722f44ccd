/**
 * Kernel timeline: GPU-Util counts time with any kernel running (gpu-facts 1.1); SM activity also counts
 * how many SMs those kernels cover (gpu-facts 2.2, 2.4). Busy in time is not busy in space.
 */
import { GPU_SPECS } from '../gpu-specs.ts';
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** The GPU drawn: H100 SXM, 132 SMs. */
const SM_COUNT = GPU_SPECS['h100-sxm'].smCount!;

/** GPU-Util and SM activity (both 0–1) for back-to-back kernels separated by idle gaps. */
export function kernelTimeline(kernelUs: number, gapUs: number, smsUsed: number, smCount = SM_COUNT) {
  const gpuUtil = kernelUs + gapUs > 0 ? kernelUs / (kernelUs + gapUs) : 0;
  const smShare = Math.min(1, smsUsed / smCount);
  return { gpuUtil, smActivity: gpuUtil * smShare, smShare };
}

const WINDOW_US = 1000;

export const figure: FigureDef = {
  name: 'kernel-timeline',
  caption: 'Kernel timeline: busy in time (GPU-Util) against busy in space (SM activity) on an H100 SXM',
  controls: [
    { kind: 'range', id: 'kernelUs', label: 'Kernel length', unit: 'µs', min: 1, max: 1000, step: 1, value: 50 },
    { kind: 'range', id: 'gapUs', label: 'Launch gap', unit: 'µs', min: 0, max: 500, step: 1, value: 10 },
    {
      kind: 'range',
      id: 'smsUsed',
      label: 'SMs used per kernel',
      unit: 'SMs',
      min: 1,
      max: SM_COUNT,
      step: 1,
      value: 132,
    },
  ],
  view(v: Values) {
    const k = Number(v['kernelUs']);
    const g = Number(v['gapUs']);
    const sms = Number(v['smsUsed']);
    const r = kernelTimeline(k, g, sms);
    // Top: the 1 ms sample window; each kernel a block whose height is its share of the SMs.
    const x0 = 8;
    const w = 304;
    const laneTop = 22;
    const laneH = 80;
    const scale = w / WINDOW_US;
    let blocks = '';
    for (let t = 0, n = 0; t < WINDOW_US && n < 400; t += k + g, n++) {
      const len = Math.min(k, WINDOW_US - t);
      blocks += rect(x0 + t * scale, laneTop + laneH * (1 - r.smShare), len * scale, laneH * r.smShare, 'fig-a');
    }
    const bar = (y: number, share: number, label: string, cls: string) =>
      rect(x0, y, w, 14, 'fig-track') + rect(x0, y, w * share, 14, cls) + text(x0, y - 3, label);
    const svg =
      text(x0, 14, `1 ms of an H100: ${SM_COUNT} SMs tall`) +
      rect(x0, laneTop, w, laneH, 'fig-track') +
      blocks +
      bar(124, r.gpuUtil, `GPU-Util ${pct(r.gpuUtil)}`, 'fig-a') +
      bar(160, r.smActivity, `SM activity ${pct(r.smActivity)}`, 'fig-b');
    // "but" only where the two meters read differently as shown (49% and 49% are no contrast).
    const util = pct(r.gpuUtil);
    const meters =
      util === pct(r.smActivity)
        ? `GPU-Util and SM activity both read ${util}`
        : `GPU-Util reads ${util} but SM activity is ${pct(r.smActivity)}`;
    const kernels = `${fmt(k)} µs kernels ${g > 0 ? `with ${fmt(g)} µs gaps` : 'back to back'}`;
    const space = sms >= SM_COUNT ? `all ${SM_COUNT} SMs` : `${fmt(sms)} of ${SM_COUNT} SMs`;
    const readout = `${meters}: ${kernels} keep the GPU busy ${util} of the time, on ${space}.`;
    return { svg, readout };
  },
};
