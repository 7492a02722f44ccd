/**
 * Scenarios where the GPU waits on something else: nothing at all (idle), the data pipeline
 * (data-starved) or the CPU launching tiny kernels (small-kernels).
 */
import { busyFraction, clamp } from '../noise.ts';
import { hostSample, powerFor, SIM_GPU, tempFor, UTIL_WINDOW_MS, POWER_WINDOW_MS } from '../model.ts';
import type { ScenarioDef } from '../types.ts';
import { loaderSteadyState } from '../../figures/data-loader.ts';

/** Memory allocated by a notebook kernel, nothing running: 0% util, idle clocks, idle power. */
export const idle: ScenarioDef = {
  id: 'idle',
  title: 'Idle, memory held',
  description: 'A notebook holds 31 GiB of GPU memory but runs nothing: 0% GPU-Util, idle clocks and power.',
  fix: 'Free the memory (del tensors, torch.cuda.empty_cache(), or stop the kernel): memory used drops, util stays 0.',
  gpuCount: 1,
  knobs: [
    {
      id: 'releaseMemory',
      label: 'Memory released (0 = held, 1 = freed)',
      min: 0,
      max: 1,
      step: 1,
      default: 0,
      fixed: 1,
    },
  ],
  frame(ctx) {
    const released = (ctx.knobs['releaseMemory'] ?? 0) >= 0.5;
    const power = SIM_GPU.idlePowerWatts + 2 + ctx.jitter('pow', 500) * 2;
    return {
      gpus: [
        {
          gpuUtil: 0,
          memUtil: 0,
          memUsedGiB: released ? 0.5 : 31.4,
          powerWatts: power,
          temperatureC: 32 + ctx.drift('t', 20000),
          smClockMhz: SIM_GPU.idleSmClockMhz,
          pcieTxMBps: 0.1,
          pcieRxMBps: 0.2,
          reasons: ['GpuIdle'],
          smActive: 0,
          smOccupancy: 0,
          tensorActive: 0,
          dramActive: 0.1,
          processName: released ? null : 'python3',
        },
      ],
      host: hostSample(ctx, new Map(), 9.5),
      rates: null,
    };
  },
};

/**
 * ResNet-style training whose JPEG decoding runs on the CPU: with few DataLoader workers the GPU
 * computes for ~110 ms, then waits for the next batch. GPU-Util is low and sawtooth; the cores
 * that decode are pegged (facts 4.1, 4.5, 4.6).
 */
export const dataStarved: ScenarioDef = {
  id: 'data-starved',
  title: 'Data-starved: the GPU waits for the DataLoader',
  description: 'num_workers=0: low, sawtooth GPU-Util while the CPU cores that decode images are pegged.',
  fix: 'Raise num_workers (8 on this 16-core host): GPU-Util climbs to ~97%, samples/s rises ~7×.',
  gpuCount: 1,
  knobs: [{ id: 'numWorkers', label: 'DataLoader num_workers', min: 0, max: 15, step: 1, default: 0, fixed: 8 }],
  frame(ctx) {
    const workers = Math.round(clamp(ctx.knobs['numWorkers'] ?? 0, 0, 15));
    const batch = 256;
    const gpuMs = 110;
    const loadMs = 700 * (1 + ctx.drift('disk', 6000) * 0.05); // decode + augment one batch on one core
    // num_workers=0 loads in the main process, in series with the step; workers load in parallel
    // (the same steady state as the data-loader figure, with 3 ms of per-step overhead on the GPU side).
    const periodMs = workers === 0 ? loadMs + gpuMs : loaderSteadyState(workers, loadMs, gpuMs + 3, batch).stepMs;
    const util = busyFraction(ctx.tMs, periodMs, gpuMs, UTIL_WINDOW_MS);
    const powerBusy = busyFraction(ctx.tMs, periodMs, gpuMs, POWER_WINDOW_MS);
    const active = util;
    const power = powerFor(powerBusy, 560, ctx, 'g');
    const busyCores = new Map<number, number>();
    if (workers === 0) busyCores.set(0, 100);
    else {
      busyCores.set(0, clamp(18 + 50 * powerBusy, 0, 100));
      const workerBusy = clamp((100 * loadMs) / (workers * periodMs), 0, 100);
      for (let w = 1; w <= workers; w++) busyCores.set(w, workerBusy);
    }
    const idleNow = util < 0.01;
    return {
      gpus: [
        {
          gpuUtil: util * 100,
          memUtil: util * 42,
          memUsedGiB: 24.6,
          powerWatts: power,
          temperatureC: tempFor(power, ctx, 'g'),
          smClockMhz: SIM_GPU.smClockMaxMhz,
          pcieTxMBps: 2,
          pcieRxMBps: (38.5 * 1000) / periodMs,
          reasons: idleNow ? ['GpuIdle'] : [],
          smActive: active * 82,
          smOccupancy: active * 38,
          tensorActive: active * 41,
          dramActive: active * 36,
          fp16Active: active * 6,
          fp32Active: active * 12,
          processName: 'python3',
        },
      ],
      host: hostSample(ctx, busyCores, 14 + workers * 1.6),
      // The loop waits for data whenever a step is shorter than the period: the rest of the period.
      rates: {
        samplesPerSec: (batch * 1000) / periodMs,
        stepsPerSec: 1000 / periodMs,
        dataWaitFraction: clamp(1 - gpuMs / periodMs, 0, 1),
      },
    };
  },
};

/**
 * workloads/small_batch.py with the step replayed as a CUDA Graph: launch overhead is gone, so a kernel
 * runs almost all the time, but at a small batch every kernel launches too few blocks to fill 132 SMs.
 * Busy in time, not in space: GPU-Util ~97% with SM activity ~22% at batch 8 and modest power
 * (facts 1.5, 4.10, 4.12). The graph keeps each kernel's launch shape, so only more work per kernel
 * (a larger batch) fills the SMs. The Python thread spin-waits on the GPU, so one core reads busy.
 */
export const smallKernels: ScenarioDef = {
  id: 'small-kernels',
  title: 'Small kernels: busy in time, not in space',
  description: 'Batch size 8: GPU-Util ~97% but SM activity ~22%, tensor pipes mostly idle, ~220 W.',
  fix: 'Raise the batch size: SM activity and power rise, GPU-Util barely moves (CUDA Graphs alone would not fill the SMs).',
  gpuCount: 1,
  knobs: [{ id: 'batchSize', label: 'Batch size', min: 1, max: 256, step: 1, default: 8, fixed: 128 }],
  frame(ctx) {
    const batch = clamp(ctx.knobs['batchSize'] ?? 8, 1, 256);
    const fill = 1 - Math.exp(-batch / 28); // share of SMs a step's kernels reach
    const sm = 88 * fill + ctx.jitter('sm') * 1.5;
    // GPU time per step: ~300 short kernels take ~1 ms whatever the batch, then time grows with the work.
    const stepMs = 1 + batch * 0.022;
    const gaps = Math.max(0, 3.5 - batch / 40); // small gaps between a graph's kernels
    const power = SIM_GPU.idlePowerWatts + 560 * fill * 0.96 + ctx.jitter('pow', 200) * 5;
    return {
      gpus: [
        {
          gpuUtil: 100 - gaps + ctx.jitter('u') * 1.5,
          memUtil: 8 + 30 * fill,
          memUsedGiB: 6 + batch * 0.12,
          powerWatts: power,
          temperatureC: tempFor(power, ctx, 'g'),
          smClockMhz: SIM_GPU.smClockMaxMhz,
          pcieTxMBps: 1,
          pcieRxMBps: 4 + batch * 0.2,
          reasons: [],
          smActive: sm,
          smOccupancy: 8 + 0.35 * sm,
          tensorActive: sm * 0.5,
          dramActive: 6 + sm * 0.35,
          fp32Active: sm * 0.15,
          fp16Active: sm * 0.05,
          processName: 'python3',
        },
      ],
      // One core reads pegged: the Python thread spin-waits on the GPU (replaying is cheap, waiting is not).
      host: hostSample(ctx, new Map([[0, batch > 34 ? 55 : 100]]), 11),
      rates: { samplesPerSec: (batch * 1000) / stepMs, stepsPerSec: 1000 / stepMs },
    };
  },
};
