/**
 * Near-idle board power, from the site's one power model (src/lib/power-model.ts) and the one spec table
 * (src/lib/gpu-specs.ts): what a GPU draws when nothing on it computes or moves data. Pure.
 *
 * The power model's floor, FLOOR_SHARE = 13% of TDP, is the board power that does not scale with the SM clock
 * (memory, leakage, board): what a GPU draws with its clock up and no math running. A kernel spinning on a flag
 * (a collective waiting for its peer, gpu-facts 4.20: "100% utilization while power stayed at idle") adds a little
 * dynamic power on the few SMs it holds. Near idle is the floor and at most as much again:
 *   2 × 13% = 26% of TDP: 2 × 0.13 × 700 W = 182 W on an H100 SXM; 2 × 0.13 × 400 W = 104 W on an A100 SXM.
 * What fits under it: the simulator's hung ranks, 98 W of 700 W (14%); a hung V100 PCIe in the real set
 * (horovod#3611), 47 W of 250 W (19%). Real work at full clock draws the floor plus its dynamic share, far above
 * it (the simulator's compute-bound rank: ~600 W of 700 W); low-power work that is not a hang (small kernels)
 * still moves memory, which the hang rule reads beside power.
 *
 * The base is the model's TDP from the spec table, not the power limit: the floor is set by the board, and a
 * limit lowered to 350 W would halve the line under a hang that still draws ~100 W. Where the model is not in
 * the table, the power limit stands in (it is the TDP unless someone changed it).
 */
import { FLOOR_SHARE } from '../power-model.ts';
import { gpuSpecByName } from '../gpu-specs.ts';
import type { GpuStats } from './stats.ts';

/** Near-idle power as a share of TDP: twice the power model's floor (0.26). */
export const NEAR_IDLE_SHARE = 2 * FLOOR_SHARE;

/**
 * The watts under which a GPU's board power reads near idle, or null when neither its model's TDP nor its power
 * limit is known.
 * @example nearIdleWatts({ name: 'NVIDIA H100 80GB HBM3', powerLimitW: 350 }) // 182 (26% of the 700 W TDP)
 */
export function nearIdleWatts(s: Pick<GpuStats, 'name' | 'powerLimitW'>): number | null {
  const tdp = (s.name ? gpuSpecByName(s.name)?.tdpWatts : null) ?? s.powerLimitW;
  return tdp ? Math.round(NEAR_IDLE_SHARE * tdp) : null;
}

/** True when the GPU's mean board power is near idle; false when it is not, or when power or the line is unknown. */
export function nearIdlePower(s: Pick<GpuStats, 'name' | 'powerLimitW' | 'powerW'>): boolean {
  const line = nearIdleWatts(s);
  return line !== null && s.powerW !== null && s.powerW <= line;
}
