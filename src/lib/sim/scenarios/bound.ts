/**
 * Scenarios where the GPU is busy and the question is with what: memory traffic (memory-bound),
 * tensor math (compute-bound, the healthy case) or a clock held down by power or heat (throttled).
 */
import { clamp } from '../noise.ts';
import { hostSample, SIM_GPU, tempFor } from '../model.ts';
import { BLOCKED_AIRFLOW_SHARE, gptTokensPerSec, sustainedUnderLimit } from '../../lab/physics.ts';
import type { ScenarioDef } from '../types.ts';

/**
 * Unfused elementwise ops, norms and softmax stream tensors through HBM: DRAM activity near the
 * ~80% practical ceiling, tensor pipes nearly idle, GPU-Util 99% (facts 2.8, 4.11, 4.24).
 */
export const memoryBound: ScenarioDef = {
  id: 'memory-bound',
  title: 'Memory-bound: HBM is the limit',
  description: 'Unfused elementwise ops: DRAM activity ~75%, tensor activity ~6%, GPU-Util 99%.',
  fix: 'Fuse the ops (torch.compile): DRAM activity falls to ~45%, tensor activity and tokens/s rise.',
  gpuCount: 1,
  knobs: [{ id: 'fused', label: 'Ops fused with torch.compile (0/1)', min: 0, max: 1, step: 1, default: 0, fixed: 1 }],
  frame(ctx) {
    const fused = (ctx.knobs['fused'] ?? 0) >= 0.5;
    const j = (c: string, a: number): number => ctx.jitter(c) * a;
    const dram = (fused ? 46 : 75) + j('dram', 2.5);
    const tensor = (fused ? 37 : 6) + j('tensor', 1.5);
    const power = (fused ? 585 : 470) + j('pow', 8);
    return {
      gpus: [
        {
          gpuUtil: 99 + j('u', 1),
          memUtil: (fused ? 52 : 88) + j('mu', 3),
          memUsedGiB: 61.2,
          powerWatts: power,
          temperatureC: tempFor(power, ctx, 'g'),
          smClockMhz: SIM_GPU.smClockMaxMhz,
          pcieTxMBps: 3,
          pcieRxMBps: 40,
          reasons: [],
          smActive: (fused ? 86 : 71) + j('sm', 2),
          smOccupancy: (fused ? 44 : 52) + j('occ', 2),
          tensorActive: tensor,
          dramActive: dram,
          fp32Active: (fused ? 12 : 17) + j('fp32', 1),
          fp16Active: 4,
          processName: 'python3',
        },
      ],
      host: hostSample(ctx, new Map([[0, 35]]), 18),
      rates: { tokensPerSec: (fused ? 61_500 : 36_000) * (1 + j('tps', 0.01)) },
    };
  },
};

/**
 * Large bf16 matmuls: the healthy picture. GPU-Util 100%, SM activity ~92%, tensor ~68%, ~660 W.
 * Turn AMP off to see GPU-Util stay at 100% while tensor activity drops to ~0 and throughput falls
 * several-fold (facts 4.15, 4.17). Tokens/s are workloads/mfu.py's GPT at illustrative efficiencies
 * (src/lib/lab/physics.ts): ~196,000 in bf16 (25% MFU), ~26,600 in fp32 (half the FP32 peak), 7.4×.
 */
export const computeBound: ScenarioDef = {
  id: 'compute-bound',
  title: 'Compute-bound: healthy training',
  description: 'bf16 matmuls: GPU-Util 100%, SM activity ~92%, tensor activity ~68%, ~660 W.',
  fix: 'Healthy already; set amp=0 to see FP32 without Tensor Cores: same GPU-Util, ~7× fewer tokens/s.',
  gpuCount: 1,
  knobs: [{ id: 'amp', label: 'Mixed precision bf16 (0/1)', min: 0, max: 1, step: 1, default: 1, fixed: 1 }],
  frame(ctx) {
    const amp = (ctx.knobs['amp'] ?? 1) >= 0.5;
    const j = (c: string, a: number): number => ctx.jitter(c) * a;
    const power = (amp ? 662 : 515) + j('pow', 10) + ctx.drift('pd') * 8;
    return {
      gpus: [
        {
          gpuUtil: 100 - Math.abs(j('u', 0.8)),
          memUtil: (amp ? 36 : 24) + j('mu', 2),
          memUsedGiB: amp ? 71.3 : 76.8,
          powerWatts: power,
          temperatureC: tempFor(power, ctx, 'g'),
          smClockMhz: SIM_GPU.smClockMaxMhz - (amp ? 30 : 0),
          pcieTxMBps: 4,
          pcieRxMBps: 55,
          reasons: [],
          smActive: 92 + j('sm', 1.5),
          smOccupancy: (amp ? 38 : 46) + j('occ', 2),
          tensorActive: amp ? 68 + j('t', 2.5) : 0.4,
          dramActive: (amp ? 31 : 22) + j('dram', 2),
          fp32Active: amp ? 9 : 74 + j('fp32', 2),
          fp16Active: amp ? 3 : 0,
          processName: 'python3',
        },
      ],
      host: hostSample(ctx, new Map([[0, 30]]), 22),
      rates: { tokensPerSec: gptTokensPerSec(amp) * (1 + j('tps', 0.01)) },
    };
  },
};

/**
 * workloads/sustained_load.py (a sustained bf16 GEMM) held back by its clocks: a power cap set with
 * `nvidia-smi -pl` (SwPowerCap) and blocked airflow (thermal slowdown). GPU-Util and SM activity look
 * fine; clocks and clock event reasons tell the story (facts 3.5–3.10). The GEMM would draw ~800 W at
 * the maximum clock (illustrative), so even at the default 700 W limit it sits at the cap with SwPowerCap
 * active and the clock ~92% of max (~1,820 MHz, by the power card's model), as the power card says heavy dense
 * math does: restoring the limit clears the thermal reasons and the artificial cap, not SwPowerCap. At 400 W the
 * same model gives ~1,210 MHz, a third less throughput, as the card says.
 */
export const throttled: ScenarioDef = {
  id: 'throttled',
  title: 'Throttled: power cap and heat',
  description: 'Power capped at 400 W and poor airflow: clocks ~1.2 GHz, SwPowerCap and thermal slowdown, ~87 °C.',
  fix: 'Restore the 700 W limit and the airflow: thermal reasons clear, clocks ~1.82 GHz at the cap, tokens/s up ~50%.',
  gpuCount: 1,
  knobs: [
    { id: 'powerLimitWatts', label: 'Power limit (W)', min: 200, max: 700, step: 10, default: 400, fixed: 700 },
    { id: 'airflow', label: 'Airflow OK (0/1)', min: 0, max: 1, step: 1, default: 0, fixed: 1 },
  ],
  frame(ctx) {
    const limit = clamp(ctx.knobs['powerLimitWatts'] ?? 400, 200, 700);
    const airflow = (ctx.knobs['airflow'] ?? 0) >= 0.5;
    const reasons: string[] = [];
    const heat = ctx.drift('heat', 7000);
    // The site's one power model (src/lib/power-model.ts, as the power card's figure): the clock is the lower of
    // what the limit allows and what the heat allows.
    let thermalShare = 1;
    let temp = 0;
    if (!airflow) {
      temp = 87 + heat * 3; // blocked airflow holds the GPU at its slowdown point
      thermalShare = BLOCKED_AIRFLOW_SHARE;
      reasons.push('SwThermalSlowdown');
      if (heat > 0.75) {
        thermalShare *= 0.5; // hardware slowdown cuts clocks by 2x or more (fact 3.8)
        reasons.push('HwSlowdown', 'HwThermalSlowdown');
      }
    }
    const at = sustainedUnderLimit(limit, thermalShare);
    if (at.powerCapped) reasons.unshift('SwPowerCap');
    const scale = at.clockShare;
    const power = Math.min(limit, at.powerWatts) - Math.abs(ctx.jitter('pow')) * 4;
    if (airflow) temp = tempFor(power, ctx, 'g');
    const clock = SIM_GPU.smClockMaxMhz * scale + ctx.jitter('clk', 300) * 15;
    return {
      gpus: [
        {
          gpuUtil: 100 - Math.abs(ctx.jitter('u')),
          memUtil: 34,
          memUsedGiB: 71.3,
          powerWatts: power,
          powerLimitWatts: limit,
          temperatureC: temp,
          smClockMhz: clamp(clock, 400, SIM_GPU.smClockMaxMhz),
          pcieTxMBps: 4,
          pcieRxMBps: 55,
          reasons,
          smActive: 91 + ctx.jitter('sm'),
          smOccupancy: 38,
          tensorActive: 66 + ctx.jitter('t') * 2,
          dramActive: 30 * scale + 6,
          fp32Active: 9,
          fp16Active: 3,
          processName: 'python3',
        },
      ],
      host: hostSample(ctx, new Map([[0, 30]]), 22),
      rates: { tokensPerSec: at.tokensPerSec },
    };
  },
};
