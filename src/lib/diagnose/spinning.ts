/**
 * Busy in time, still in space: what a rank spinning in a collective reads. Pure.
 *
 * NCCL launches one block per channel (nccl#689, sjeaugey: "2 at least"; a kernel on one SM reads 100% GPU-Util
 * "but it's not using a lot of power"), and a waiting block spins on a flag: its SM counts as active (DCGM SM
 * Activity counts any resident warp, gpu-facts 2.2). So a hung rank's SM activity is its channels ÷ its SMs:
 * nccl#1432 reports 15% for a single NCCL kernel; at 32 channels it is 32 ÷ 132 = 24% on an H100 SXM and
 * 32 ÷ 108 = 30% on an A100 SXM (SM counts from the spec table). Under that line SM activity alone cannot tell a
 * spinning collective from small kernels; what tells them apart is what spinning does not do: it moves no memory
 * (DRAM or copy activity under 2%), issues no tensor instructions, and draws near-idle power (idle-power.ts).
 * Small kernels do work: they read and write operands and draw power above idle.
 */
import { gpuSpecByName } from '../gpu-specs.ts';
import { nearIdlePower } from './idle-power.ts';
import type { GpuStats } from './stats.ts';

/** NCCL's channels per communicator at most, as this rule counts them (one spinning block, one SM, each). */
export const SPIN_CHANNELS = 32;

/** Near zero: an activity reading that says the GPU moves no data and does no math. */
const quiet = (x: number | null): boolean => x !== null && x < 2;

/**
 * The SM activity (%) spinning NCCL blocks can explain on this GPU: 32 channels ÷ its SMs, or null when its model
 * (and so its SM count) is not in the spec table.
 * @example spinCeilingPct({ name: 'NVIDIA H100 80GB HBM3' }) // 24
 */
export function spinCeilingPct(s: Pick<GpuStats, 'name'>): number | null {
  const sms = s.name ? gpuSpecByName(s.name)?.smCount : null;
  return sms ? Math.round((100 * SPIN_CHANNELS) / sms) : null;
}

/**
 * A rank that spins and does nothing else: SM activity at a level spinning blocks explain, tensor pipes and memory
 * quiet, board power near idle. Every reading it names must be present and agree; none may be guessed.
 */
export function spinning(s: GpuStats): boolean {
  const ceiling = spinCeilingPct(s);
  return (
    s.sm !== null &&
    ceiling !== null &&
    s.sm <= ceiling &&
    quiet(s.tensor) &&
    (quiet(s.dram) || (s.dram === null && quiet(s.memUtil))) &&
    nearIdlePower(s)
  );
}
