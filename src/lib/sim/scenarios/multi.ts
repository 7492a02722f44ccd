/**
 * Multi-GPU scenarios (4 GPUs, data parallel): a collective that never completes (nccl-hang) and
 * one rank that every other rank waits for (straggler).
 */
import { clamp } from '../noise.ts';
import { hostSample, SIM_GPU, tempFor, type GpuState, type SimContext } from '../model.ts';
import type { ScenarioDef } from '../types.ts';

const RANKS = 4;

/** A healthy data-parallel rank; `work` is the share of the step spent computing (the rest waits in NCCL). */
function trainingRank(ctx: SimContext, rank: number, work: number): GpuState {
  const j = (c: string, a: number): number => ctx.jitter(`${c}${rank}`) * a;
  const wait = 1 - work;
  // Waiting inside an all-reduce still runs a kernel: GPU-Util stays ~100% (fact 4.20).
  const power = SIM_GPU.idlePowerWatts + 40 * wait + 585 * work + j('p', 8);
  return {
    gpuUtil: 100 - Math.abs(j('u', 1)),
    memUtil: 34 * work + 2,
    memUsedGiB: 68.9 + rank * 0.3,
    powerWatts: power,
    temperatureC: tempFor(power, ctx, `r${rank}`),
    smClockMhz: SIM_GPU.smClockMaxMhz - 30,
    pcieTxMBps: 6,
    pcieRxMBps: 48,
    reasons: [],
    smActive: 91 * work + 2 * wait + j('sm', 1.5),
    smOccupancy: 38 * work + 1,
    tensorActive: 66 * work + j('t', 2),
    dramActive: 30 * work + 3 * wait,
    fp32Active: 9 * work,
    fp16Active: 3 * work,
    processName: 'python3',
  };
}

/**
 * Training runs normally for 15 s, then rank 2 stalls on the host (say, a deadlocked data loader)
 * and never joins the next all-reduce. The other ranks spin in the NCCL kernel: 100% GPU-Util at
 * near-idle power, SM activity ~1%, no tensor work, tokens/s 0; rank 2's GPU reads 0% (fact 4.20).
 */
export const ncclHang: ScenarioDef = {
  id: 'nccl-hang',
  title: 'NCCL hang: 100% GPU-Util at idle power',
  description: 'After 15 s rank 2 stalls: ranks 0, 1, 3 show 100% GPU-Util at ~100 W with SM activity ~1%.',
  fix: 'Fix the stalled rank (hang=0) and training continues; in practice set a collective timeout and restart.',
  gpuCount: RANKS,
  knobs: [{ id: 'hang', label: 'Rank 2 stalls after 15 s (0/1)', min: 0, max: 1, step: 1, default: 1, fixed: 0 }],
  frame(ctx) {
    const hangAtMs = 15_000;
    const hung = (ctx.knobs['hang'] ?? 1) >= 0.5 && ctx.tMs >= hangAtMs;
    if (!hung) {
      const gpus = Array.from({ length: RANKS }, (_, r) => trainingRank(ctx, r, 0.9));
      const cores = new Map(Array.from({ length: RANKS }, (_, r) => [r, 45] as const));
      return { gpus, host: hostSample(ctx, cores, 48), rates: { tokensPerSec: 4 * 94_000 } };
    }
    const sinceS = (ctx.tMs - hangAtMs) / 1000;
    const cooling = Math.exp(-sinceS / 40); // temperatures fall towards idle over a few minutes
    const gpus = Array.from({ length: RANKS }, (_, r): GpuState => {
      const j = (c: string, a: number): number => ctx.jitter(`${c}${r}`) * a;
      if (r === 2) {
        const power = SIM_GPU.idlePowerWatts + 6 + j('p', 2);
        return {
          gpuUtil: 0,
          memUtil: 0,
          memUsedGiB: 69.5,
          powerWatts: power,
          temperatureC: 34 + 38 * cooling,
          smClockMhz: SIM_GPU.smClockMaxMhz - 30,
          pcieTxMBps: 0,
          pcieRxMBps: 0,
          reasons: ['GpuIdle'],
          smActive: 0,
          smOccupancy: 0,
          tensorActive: 0,
          dramActive: 0,
          processName: 'python3',
        };
      }
      const power = 98 + j('p', 4);
      return {
        gpuUtil: 100,
        memUtil: 0,
        memUsedGiB: 68.9 + r * 0.3,
        powerWatts: power,
        temperatureC: 38 + 34 * cooling,
        smClockMhz: SIM_GPU.smClockMaxMhz - 30,
        pcieTxMBps: 0.1,
        pcieRxMBps: 0.1,
        reasons: [],
        smActive: 1.2 + j('sm', 0.2),
        smOccupancy: 0.6,
        tensorActive: 0,
        dramActive: 0.2,
        processName: 'python3',
      };
    });
    // Ranks 0, 1 and 3 busy-wait on the host too; rank 2 is blocked and uses no CPU.
    const cores = new Map<number, number>([
      [0, 100],
      [1, 100],
      [3, 100],
      [2, 1],
    ]);
    return { gpus, host: hostSample(ctx, cores, 48), rates: { tokensPerSec: 0, stepsPerSec: 0 } };
  },
};

/**
 * Rank 2 gets the long sequences and needs ~35% longer per step; the other ranks finish early and
 * wait in the all-reduce. Every GPU reads ~100% GPU-Util, but the waiting ranks draw less power and
 * show lower SM activity; the whole job runs at the straggler's pace (fact 4.19).
 */
export const straggler: ScenarioDef = {
  id: 'straggler',
  title: 'Straggler: everyone waits for rank 2',
  description: 'Rank 2 needs 35% longer per step: all GPUs read ~100% util, but ranks 0, 1, 3 draw ~490 W vs ~650 W.',
  fix: 'Balance tokens per batch (bucket by length): all ranks match and tokens/s rises ~35%.',
  gpuCount: RANKS,
  knobs: [{ id: 'balanced', label: 'Batches balanced by tokens (0/1)', min: 0, max: 1, step: 1, default: 0, fixed: 1 }],
  frame(ctx) {
    const balanced = (ctx.knobs['balanced'] ?? 0) >= 0.5;
    const slow = balanced ? 1 : 1.35 + ctx.drift('imbalance', 5000) * 0.05;
    const gpus = Array.from({ length: RANKS }, (_, r) =>
      trainingRank(ctx, r, r === 2 ? 0.96 : clamp(0.96 / slow, 0, 1)),
    );
    const cores = new Map(Array.from({ length: RANKS }, (_, r) => [r, 42] as const));
    return { gpus, host: hostSample(ctx, cores, 48), rates: { tokensPerSec: (4 * 94_000) / slow } };
  },
};
