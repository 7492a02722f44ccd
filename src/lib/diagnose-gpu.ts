/**
 * The verdict for one GPU over the window, in the order the evidence allows: clock event reasons
 * first (they decide throttling on their own), then what GPU-Util says the GPU did (idle, waiting,
 * busy), and what the finer readings say about why. A reading the source did not give is null and
 * is never read as 0: a rule that needs it says "can't tell" and names it in `decide`. Pure.
 */
import type { GpuStats } from './diagnose-stats.ts';
import type { Verdict } from './diagnose-types.ts';
import { throttledVerdict } from './diagnose-throttle.ts';

const r0 = (x: number): string => String(Math.round(x));
/** Data-wait share above which the input pipeline is the limit; below `NOT_DATA` it is not. */
export const STARVED_WAIT = 0.25;
const NOT_DATA = 0.1;

const power = (s: GpuStats): string =>
  s.powerW === null
    ? ''
    : ` at ${r0(s.powerW)} W${s.powerPct === null ? '' : ` (${r0(s.powerPct)}% of the ${r0(s.powerLimitW ?? 0)} W limit)`}`;

/** True when the training loop reports rates above zero. */
export function progressing(s: GpuStats): boolean {
  return [s.samplesPerSec, s.tokensPerSec, s.stepsPerSec].some((x) => x !== null && x > 0);
}

const rate = (s: GpuStats): string[] =>
  s.samplesPerSec !== null
    ? [`${r0(s.samplesPerSec)} samples/s`]
    : s.tokensPerSec !== null
      ? [`${r0(s.tokensPerSec)} tokens/s`]
      : [];

function starved(s: GpuStats, ev: string[]): Verdict {
  const wait = s.dataWait ?? 0;
  const idleCores = s.maxCorePct !== null && s.maxCorePct < 85;
  return {
    kind: 'data-starvation',
    title: 'Data starvation: the GPU waits for the input pipeline',
    confidence: wait >= 0.4 ? 'high' : 'medium',
    cardId: 'data-loader-bottleneck',
    evidence: [
      ...ev,
      `the training loop waited for data ${r0(wait * 100)}% of the time`,
      ...(s.maxCorePct === null ? [] : [`busiest CPU core ${r0(s.maxCorePct)}%`]),
      ...rate(s),
    ],
    next: idleCores
      ? 'The loader waits with idle cores: reads are slow, not decoding. Cache the data on local SSD or in RAM, or use a faster format (shards instead of random reads from HDF5/HDD).'
      : 'Load in parallel: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True) on a 16-core host, or move decoding/augmentation to the GPU.',
  };
}

const decideWait =
  'Data-wait fraction (python/saturate_report.py times the DataLoader): above 25% the input pipeline is the limit; near 0 the GPU waits on host syncs or kernel launches instead.';

function idleVerdict(s: GpuStats): Verdict {
  const ev = [`GPU-Util ${r0(s.util.mean)}% over ${s.spanS} s${power(s)}`];
  if (s.dataWait !== null && s.dataWait >= STARVED_WAIT) return starved(s, ev);
  if (progressing(s))
    return {
      kind: 'cant-tell',
      title: "Can't tell: near-zero GPU-Util while the loop reports progress",
      confidence: 'low',
      cardId: 'data-loader-bottleneck',
      evidence: [...ev, ...rate(s)],
      next: 'Time the DataLoader in the loop (Reporter.timed in python/saturate_report.py) or profile one step.',
      decide: decideWait,
    };
  const memKnown = s.memUsedGiB !== null;
  const held = (s.memUsedGiB ?? 0) >= 1 || (s.processCount ?? 0) > 0;
  if (held) {
    const mem = memKnown ? `${(s.memUsedGiB ?? 0).toFixed(1)} GiB allocated` : 'memory amount not reported';
    const procs = s.processCount === null ? '' : ` by ${s.processCount} process(es)`;
    return {
      kind: 'idle-allocated',
      title: 'Idle but allocated: paying for a GPU that does nothing',
      // 0% for the whole window can still be a job starved for minutes per batch: only a loop that
      // reports zero progress makes "does nothing" certain.
      confidence: s.util.max < 5 && [s.samplesPerSec, s.tokensPerSec, s.stepsPerSec].includes(0) ? 'high' : 'medium',
      cardId: 'cost-of-idle-gpus',
      evidence: [
        ...ev,
        `${mem}${procs}${s.processNames.length ? ` (${s.processNames.join(', ')})` : ''}`,
        ...(s.dataWait !== null ? [`the loop waited for data ${r0(s.dataWait * 100)}% of the time`] : []),
      ],
      next: 'Release it: stop the idle notebook kernel or job (or `del` tensors and `torch.cuda.empty_cache()`). A GPU bills by the hour, busy or not: at $3/GPU-hour that is about $2,190 a month.',
    };
  }
  if (memKnown || s.processCount === 0)
    return {
      kind: 'idle',
      title: 'Idle: nothing running, nothing held',
      confidence: memKnown && s.processCount === 0 ? 'high' : 'medium',
      cardId: 'gpu-util',
      evidence: [
        ...ev,
        ...(memKnown ? [`${(s.memUsedGiB ?? 0).toFixed(1)} GiB allocated`] : []),
        ...(s.processCount === 0 ? ['no process on the GPU'] : []),
      ],
      next: 'Nothing to fix here; start the workload you want to measure.',
    };
  return {
    kind: 'cant-tell',
    title: "Can't tell: GPU-Util near 0, but is anything running?",
    confidence: 'low',
    cardId: 'gpu-util',
    evidence: [...ev, 'memory used and the process list not reported'],
    next: 'Read `nvidia-smi` on the machine: the memory used and the process list say whether a job holds this GPU.',
    decide: decideWait,
  };
}

function waitingVerdict(s: GpuStats): Verdict {
  const ev = [
    `GPU-Util averages ${r0(s.util.mean)}% and swings ${r0(s.util.min)}–${r0(s.util.max)}% over ${s.spanS} s`,
  ];
  if (s.dataWait !== null && s.dataWait >= STARVED_WAIT) return starved(s, ev);
  if (s.dataWait !== null && s.dataWait < NOT_DATA)
    return {
      kind: 'cant-tell',
      title: "Can't tell: the GPU waits on the host, but not for data",
      confidence: 'low',
      cardId: 'host-device-syncs',
      evidence: [...ev, `the loop waited for data only ${r0(s.dataWait * 100)}% of the time`],
      next: 'Profile one step (torch.profiler or Nsight Systems): look for .item()/.cpu() syncs, checkpoint writes or launch gaps.',
      decide:
        'A trace of one step (torch.profiler): gaps after .item()/.cpu() are host syncs; thousands of short kernels are launch overhead.',
    };
  if (s.dataWait === null && s.maxCorePct !== null && s.maxCorePct >= 85)
    return {
      ...starved(s, ev),
      confidence: 'medium',
      evidence: [...ev, `busiest CPU core ${r0(s.maxCorePct)}% (all cores ${r0(s.cpuPct ?? 0)}%)`, ...rate(s)],
    };
  return {
    kind: 'cant-tell',
    title: "Can't tell: the GPU waits, but on what?",
    confidence: 'low',
    cardId: 'data-loader-bottleneck',
    evidence: [...ev, ...(s.maxCorePct === null ? [] : [`busiest CPU core ${r0(s.maxCorePct)}%`]), ...rate(s)],
    next: 'Time the DataLoader (Reporter.timed in python/saturate_report.py) or profile one step.',
    decide: decideWait,
  };
}

function activityVerdict(s: GpuStats, w: string): Verdict {
  const sm = r0(s.sm ?? 0);
  const t = s.tensor ?? 0;
  if ((s.sm ?? 0) < 50) {
    return {
      kind: 'small-kernels',
      title: 'Busy in time, not in space: small kernels',
      confidence: (s.sm ?? 0) < 35 ? 'high' : 'medium',
      cardId: 'small-batches-small-kernels',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% but SM activity ${sm}% ${w}`,
        ...(s.powerW !== null ? [`power${power(s)}`] : []),
        ...(s.maxCorePct !== null && s.maxCorePct >= 85
          ? [`one CPU core at ${r0(s.maxCorePct)}%: Python launching kernels`]
          : []),
      ],
      next: 'Give each kernel more work: raise the batch size, fuse ops (torch.compile) or capture the step in CUDA Graphs to cut launch overhead.',
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

function healthy(s: GpuStats, w: string, ev: string[], sm: number | null): Verdict {
  return {
    kind: 'compute-bound',
    title: 'Healthy: compute-bound',
    confidence: sm !== null && sm >= 80 ? 'high' : 'medium',
    cardId: 'throughput-not-utilization',
    evidence: [
      ...ev,
      ...(s.powerW !== null ? [`power${power(s)}`] : []),
      ...(sm !== null && sm < 80
        ? ['SM activity below 80%: NVIDIA calls ≥ 80% necessary (not sufficient) for effective use']
        : []),
      ...(sm === null ? [`GPU-Util ${r0(s.util.mean)}% ${w}; SM activity not reported`] : []),
    ],
    next: 'Judge it by useful work now: tokens/s and MFU against the dense peak, not by GPU-Util.',
  };
}

/** Busy in time: what the SM, tensor and DRAM readings (or their absence) say about the work. */
function busyVerdict(s: GpuStats): Verdict {
  const w = `over ${s.spanS} s`;
  if (s.sm !== null) return activityVerdict(s, w);
  if (s.tensor !== null && s.tensor >= 30)
    return healthy(
      s,
      w,
      [`tensor activity ${r0(s.tensor)}%${s.dram === null ? '' : `, DRAM ${r0(s.dram)}%`} ${w}`],
      null,
    );
  if (s.dram !== null && s.dram >= 60 && (s.tensor === null || s.tensor < 25)) return memoryBound(s, w, 'medium');
  const lowPower = s.powerPct !== null && s.powerPct < 40;
  const pegged = s.maxCorePct !== null && s.maxCorePct >= 85;
  if (lowPower && (progressing(s) || pegged))
    return {
      kind: 'small-kernels',
      title: 'Busy in time, not in space (judged from power)',
      confidence: 'medium',
      cardId: 'small-batches-small-kernels',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}%${power(s)} ${w}: kernels run all the time but draw little power`,
        ...(progressing(s) ? [`the loop is progressing: ${rate(s).join(', ') || 'steps reported'}`] : []),
        ...(pegged ? [`one CPU core at ${r0(s.maxCorePct ?? 0)}%: Python launching kernels`] : []),
        'SM activity not available',
      ],
      next: 'Give each kernel more work: a larger batch, fused ops (torch.compile) or CUDA Graphs for launch overhead.',
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
      decide:
        'Throughput (steps/s): 0 with every rank at 100% is a hang in a collective; advancing means small kernels or launch overhead.',
    };
  return {
    kind: 'cant-tell',
    title: "Can't tell: busy, but with what?",
    confidence: 'low',
    cardId: 'gpm-on-hopper',
    evidence: [
      `GPU-Util ${r0(s.util.mean)}%${power(s)} ${w}: a kernel ran ${r0(s.util.mean)}% of the time, which says nothing about how much of the GPU it used`,
    ],
    next: 'Read the profiling counters, or run Nsight Compute on the hottest kernels.',
    decide:
      'SM activity (GPM on Hopper or newer; DCGM field 1002 on A100/V100): below 50% is small kernels; high with DRAM near 80% and idle tensor pipes is memory-bound; high with busy tensor pipes is compute-bound.',
  };
}

/** The per-GPU verdict, before looking across GPUs. */
export function diagnoseGpu(s: GpuStats): Verdict {
  const throttled = throttledVerdict(s);
  if (throttled) return throttled;
  if (s.util.n === 0) {
    const clockSide = s.clockMhz !== null || s.tempC !== null || s.memTempC !== null;
    return {
      kind: 'cant-tell',
      title: "Can't tell: no GPU-Util readings",
      confidence: 'low',
      cardId: clockSide ? 'clocks-and-clock-event-reasons' : 'nvml',
      evidence: [
        s.utilWhy ?? 'GPU-Util not reported',
        ...(s.clockMhz !== null ? [`SM clock ${r0(s.clockMhz)} MHz`] : []),
        ...(s.tempC !== null ? [`temperature ${r0(s.tempC)} °C`] : []),
        ...(s.memTempC !== null ? [`memory temperature ${r0(s.memTempC)} °C`] : []),
      ],
      next: clockSide
        ? 'Read `nvidia-smi -q -d PERFORMANCE` while the job runs: it lists each clock event reason as Active or Not Active.'
        : 'Check that the lab server can read this GPU (`nvidia-smi` on the same machine).',
      decide: clockSide
        ? 'Clock event reasons: a power or thermal reason active most of the time means throttled; none active means the clock is not the limit.'
        : 'GPU-Util: whether a kernel runs at all is the first thing every other rule needs.',
    };
  }
  if (s.util.mean >= 50 && s.processCount === 0 && (s.memUsedGiB ?? 0) < 1) {
    return {
      kind: 'idle',
      title: 'Nothing runs: GPU-Util reads busy with no process on the GPU',
      confidence: 'medium',
      cardId: 'gpu-util',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% over ${s.spanS} s with no process on the GPU`,
        ...(s.memUtil !== null ? [`memory busy ${r0(s.memUtil)}% of the time`] : []),
      ],
      next: 'The utilization counter is stuck (seen after a killed job or a resume from suspend): a GPU reset (`nvidia-smi -r`, no processes attached) or a reboot clears it. Nothing to optimize.',
    };
  }
  if (s.util.mean < 5 && s.util.p90 < 15) return idleVerdict(s);
  if (s.util.mean < 85) return waitingVerdict(s);
  return busyVerdict(s);
}
