/**
 * Busy in time (GPU-Util ≥ 85%): what SM, tensor and DRAM activity, or their absence, say about the
 * work. Low power alone never decides "small kernels": it takes a sign of progress too. A pegged CPU core reads
 * as Python launching kernels, except where the lab's setup replays the step as a CUDA Graph (setup.ts). Pure.
 */
import type { GpuStats } from './stats.ts';
import type { Verdict } from './types.ts';
import { powerText as power, progressing, r0, rateText as rate } from './format.ts';
import type { LabSetup } from './setup.ts';
import { nearIdlePower } from './idle-power.ts';
import { spinning } from './spinning.ts';
import { THROTTLE_SHARE } from './throttle.ts';

const quiet = (x: number | null): boolean => x !== null && x < 2;

/** What a pegged CPU core says beside a busy GPU: Python launching kernels, unless the setup removed launches. */
interface CoreReading {
  /** A core at ≥ 85% that reads as Python launching kernels (a sign the loop is working). */
  launching: boolean;
  /** The evidence line for a pegged core, or none. */
  line: string[];
  /** The lab's step replays as a CUDA Graph (setup.ts). */
  graphs: boolean;
}

function coreReading(s: GpuStats, setup: readonly LabSetup[]): CoreReading {
  const graphs = setup.includes('cuda-graphs');
  const pegged = s.maxCorePct !== null && s.maxCorePct >= 85;
  if (!pegged) return { launching: false, line: [], graphs };
  const core = `one CPU core at ${r0(s.maxCorePct ?? 0)}%`;
  return graphs
    ? {
        launching: false,
        line: [`${core}: the Python thread waiting for the GPU (the step replays as a CUDA Graph)`],
        graphs,
      }
    : { launching: true, line: [`${core}: Python launching kernels`], graphs };
}

function activityVerdict(s: GpuStats, w: string, core: CoreReading): Verdict {
  const sm = r0(s.sm ?? 0);
  const t = s.tensor ?? 0;
  const memQuiet = quiet(s.dram) || quiet(s.memUtil);
  // A pegged core beside a GPU at near-idle power, memory quiet, is the Python thread spin-waiting in a sync
  // (cudaStreamSynchronize polls), not launching work: it does not say the loop progresses.
  const waitingCore = core.launching && memQuiet && nearIdlePower(s);
  if (((s.sm ?? 0) < 10 || spinning(s)) && memQuiet && !progressing(s) && (!core.launching || waitingCore)) {
    // Busy in time with no SM, memory or host activity and no progress reported: a kernel that
    // polls (a collective waiting for a peer, a kernel that never ends) looks the same as tiny work. SM activity up
    // to what NCCL's spinning blocks hold counts as none when tensor, memory and power agree (spinning.ts).
    return {
      kind: 'cant-tell',
      title: "Can't tell: busy, but nothing moves. Is the job making progress?",
      confidence: 'low',
      cardId: 'nccl-hangs-read-100',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% but SM activity ${sm}% and ${s.dram !== null ? `DRAM ${r0(s.dram)}%` : `memory busy ${r0(s.memUtil ?? 0)}% of the time`} ${w}`,
        ...(s.powerW !== null ? [`power${power(s)}`] : []),
        ...(waitingCore
          ? [`one CPU core at ${r0(s.maxCorePct ?? 0)}%: at near-idle GPU power, a thread spin-waiting in a sync`]
          : []),
      ],
      next: 'Check whether steps still advance (the training log, or report steps/s with python/saturate_report.py); py-spy dump shows where it waits.',
      decide:
        'Throughput (steps/s): 0 means a kernel that waits forever (a collective whose peer never came, or a kernel that never ends); advancing means very small kernels.',
    };
  }
  if ((s.sm ?? 0) < 50) {
    return {
      kind: 'small-kernels',
      title: 'Busy in time, not in space: small kernels',
      // High only when the readings agree: small kernels still move memory; memory quiet conflicts with it.
      confidence: (s.sm ?? 0) < 35 && !memQuiet ? 'high' : 'medium',
      cardId: 'small-batches-small-kernels',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% but SM activity ${sm}% ${w}`,
        ...(s.powerW !== null ? [`power${power(s)}`] : []),
        ...core.line,
      ],
      next: core.graphs
        ? 'Give each kernel more work: raise the batch size or fuse ops (torch.compile). The step already replays as a CUDA Graph, and a graph keeps each kernel at its captured size: it cannot fill the SMs.'
        : 'Give each kernel more work: raise the batch size or fuse ops (torch.compile). CUDA Graphs close launch gaps but replay each kernel at its captured size, so they do not fill the SMs.',
    };
  }
  if (s.dram !== null && s.dram >= 60 && t < 25) return memoryBound(s, w, 'high');
  if (s.tensor !== null && s.tensor < 5 && (s.fp32 ?? 0) >= 30) {
    return {
      kind: 'compute-bound',
      title: 'Compute-bound on the FP32 pipe: Tensor Cores idle',
      confidence: 'high',
      cardId: 'mixed-precision-tensor-cores',
      evidence: [`SM activity ${sm}% and FP32 pipe ${r0(s.fp32 ?? 0)}%, but tensor activity ${r0(s.tensor)}% ${w}`],
      next: 'Use the Tensor Cores: torch.autocast("cuda", dtype=torch.bfloat16), or torch.set_float32_matmul_precision("high") for TF32.',
    };
  }
  return healthy(s, w, [`SM activity ${sm}%, tensor activity ${r0(t)}%, DRAM ${r0(s.dram ?? 0)}% ${w}`], s.sm ?? 0);
}

function memoryBound(s: GpuStats, w: string, confidence: Verdict['confidence']): Verdict {
  return {
    kind: 'memory-bound',
    title: 'Memory-bound: HBM bandwidth is the limit',
    confidence,
    cardId: 'memory-bound-vs-compute-bound',
    evidence: [
      `DRAM activity ${r0(s.dram ?? 0)}% (the practical ceiling is about 80%) while tensor activity is ${s.tensor === null ? 'not reported' : `${r0(s.tensor)}%`} ${w}`,
      `${s.sm === null ? 'SM activity not reported' : `SM activity ${r0(s.sm)}%`}, GPU-Util ${r0(s.util.mean)}%`,
    ],
    next: 'Move fewer bytes per FLOP: fuse elementwise ops and norms (torch.compile), keep activations in bf16, avoid extra passes over big tensors.',
  };
}

/**
 * Limiting clock event reasons seen in the window, but in fewer samples than count as throttled (throttle.ts), other
 * than SwPowerCap (the power limit doing its job under dense math, facts 3.7): a hardware or thermal limit that bit
 * now and then. The work may still be held down, so a healthy verdict is then not certain.
 */
const sometimesHeld = (s: GpuStats): [string, number][] => s.reasons.filter(([r]) => r !== 'SwPowerCap');

function healthy(s: GpuStats, w: string, ev: string[], sm: number | null): Verdict {
  const held = sometimesHeld(s);
  return {
    kind: 'compute-bound',
    title: 'Healthy: compute-bound',
    confidence: sm !== null && sm >= 80 && held.length === 0 ? 'high' : 'medium',
    cardId: 'throughput-not-utilization',
    evidence: [
      ...ev,
      ...(s.powerW !== null ? [`power${power(s)}`] : []),
      ...(sm !== null && sm < 80
        ? ['SM activity below 80%: NVIDIA calls ≥ 80% necessary (not sufficient) for effective use']
        : []),
      ...(sm === null ? [`GPU-Util ${r0(s.util.mean)}% ${w}; SM activity not reported`] : []),
      ...(held.length
        ? [
            `${held.map(([r, f]) => `${r} active in ${r0(f * 100)}%`).join(', ')} of samples: under the ${r0(THROTTLE_SHARE * 100)}% that counts as throttled, but the clock was held down at times`,
          ]
        : []),
    ],
    next: 'Judge it by useful work now: tokens/s and MFU against the dense peak, not by GPU-Util.',
  };
}

/**
 * Busy in time: what the SM, tensor and DRAM readings (or their absence) say about the work. `setup`: what the lab's
 * workload has ruled out (setup.ts).
 */
export function busyVerdict(s: GpuStats, setup: readonly LabSetup[] = []): Verdict {
  const w = `over ${s.spanS} s`;
  const core = coreReading(s, setup);
  if (s.sm !== null) return activityVerdict(s, w, core);
  if (s.tensor !== null && s.tensor >= 30)
    return healthy(
      s,
      w,
      [`tensor activity ${r0(s.tensor)}%${s.dram === null ? '' : `, DRAM ${r0(s.dram)}%`} ${w}`],
      null,
    );
  if (s.dram !== null && s.dram >= 60 && (s.tensor === null || s.tensor < 25)) return memoryBound(s, w, 'medium');
  const lowPower = s.powerPct !== null && s.powerPct < 40;
  if (lowPower && (progressing(s) || core.launching))
    return {
      kind: 'small-kernels',
      title: 'Busy in time, not in space (judged from power)',
      confidence: 'medium',
      cardId: 'small-batches-small-kernels',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}%${power(s)} ${w}: kernels run all the time but draw little power`,
        ...(progressing(s) ? [`the loop is progressing: ${rate(s).join(', ') || 'steps reported'}`] : []),
        ...core.line,
        'SM activity not available',
      ],
      next: core.graphs
        ? 'Give each kernel more work: a larger batch or fused ops (torch.compile). The step already replays as a CUDA Graph, which keeps each kernel its captured size.'
        : 'Give each kernel more work: a larger batch or fused ops (torch.compile). CUDA Graphs close launch gaps but keep each kernel its captured size.',
    };
  if (lowPower)
    return {
      kind: 'cant-tell',
      title: "Can't tell: 100% busy at low power. Is the job making progress?",
      confidence: 'low',
      cardId: 'nccl-hangs-read-100',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}%${power(s)} ${w}`,
        'no throughput, SM or DRAM activity reported: low power alone does not say which',
      ],
      next: 'Check whether steps still advance (the training log, or report steps/s with python/saturate_report.py).',
      decide: `Throughput (steps/s): 0 with every rank at 100% is a hang in a collective; advancing means small kernels${core.graphs ? '' : ' or launch overhead'}.`,
    };
  return {
    kind: 'cant-tell',
    title: "Can't tell: busy, but with what?",
    confidence: 'low',
    cardId: 'gpm-on-hopper',
    evidence: [
      `GPU-Util ${r0(s.util.mean)}%${power(s)} ${w}: a kernel ran ${r0(s.util.mean)}% of the time, which says nothing about how much of the GPU it used`,
      ...(s.powerW === null ? ['board power not reported'] : []),
    ],
    next: 'Read the profiling counters, or run Nsight Compute on the hottest kernels.',
    decide:
      'SM activity (GPM on Hopper or newer; DCGM field 1002 on A100/V100): near 0 with DRAM idle means nothing moves (a kernel waiting on a peer, unless steps still advance); below 50% otherwise is small kernels; high with DRAM near 80% and idle tensor pipes is memory-bound; high with busy tensor pipes is compute-bound. Without it, board power: near idle on every rank of a job with memory idle means a hang.',
  };
}
