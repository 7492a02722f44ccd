/**
 * Names the likely bottleneck from a window of samples, with the evidence, the next thing to try
 * and the card that explains it; says "can't tell" and what would decide it when the metrics it
 * needs are missing (no GPM, no power reading). Pure. The rules follow the fact base:
 * GPU-Util is a time fraction (1.1); a starved GPU shows low, sawtooth GPU-Util with CPU pegged
 * (4.5, 4.6); high GPU-Util with SM activity < 50% is busy in time, not in space (2.3, 4.12); an
 * NCCL hang reads 100% at idle power (4.20); DRAM activity tops out near 80% (2.8).
 *
 * @example diagnose(lastThirtySecondsOfMessages).kind // 'data-starvation'
 */
import type { StreamMessage } from '../protocol/metrics.ts';
import { gpuStats, type GpuStats } from './diagnose-stats.ts';

export type BottleneckKind =
  | 'data-starvation'
  | 'small-kernels'
  | 'memory-bound'
  | 'compute-bound'
  | 'throttled'
  | 'idle-allocated'
  | 'communication-hang'
  | 'straggler'
  | 'idle'
  | 'cant-tell';

/** The verdict. */
export interface Diagnosis {
  kind: BottleneckKind;
  /** One line, e.g. "Busy in time, not in space: small kernels". */
  title: string;
  confidence: 'high' | 'medium' | 'low';
  /** Readings that support it, e.g. "GPU-Util 97% but SM activity 22% over 30 s". */
  evidence: string[];
  /** The next thing to try. */
  next: string;
  /** The card that explains it (content/cards/**). */
  cardId: string;
  /** For "can't tell": which reading would decide it. */
  decide?: string;
  /** GPU indexes (positions in the stream) it is about. */
  gpus: number[];
}

/** Default window, seconds. */
export const DIAGNOSIS_WINDOW_S = 30;

const r0 = (x: number): string => String(Math.round(x));
const pctOf = (s: GpuStats): string =>
  s.powerW === null
    ? ''
    : ` at ${r0(s.powerW)} W${s.powerPct === null ? '' : ` (${r0(s.powerPct)}% of the ${r0(s.powerLimitW ?? 0)} W limit)`}`;

type Verdict = Omit<Diagnosis, 'gpus'>;

function idleVerdict(s: GpuStats): Verdict {
  const held = (s.memUsedGiB ?? 0) >= 1 || (s.processCount ?? 0) > 0;
  if (!held) {
    return {
      kind: 'idle',
      title: 'Idle: nothing running, nothing held',
      confidence: 'high',
      cardId: 'gpu-util',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% over ${s.spanS} s`,
        `${(s.memUsedGiB ?? 0).toFixed(1)} GiB allocated, no process`,
      ],
      next: 'Nothing to fix here; start the workload you want to measure.',
    };
  }
  return {
    kind: 'idle-allocated',
    title: 'Idle but allocated: paying for a GPU that does nothing',
    confidence: 'high',
    cardId: 'cost-of-idle-gpus',
    evidence: [
      `GPU-Util ${r0(s.util.mean)}% for ${s.spanS} s${pctOf(s)}`,
      `${(s.memUsedGiB ?? 0).toFixed(1)} GiB held by ${s.processCount ?? '?'} process(es)${s.processNames.length ? ` (${s.processNames.join(', ')})` : ''}`,
    ],
    next: 'Release it: stop the idle notebook kernel or job (or `del` tensors and `torch.cuda.empty_cache()`). A GPU bills by the hour, busy or not: at $3/GPU-hour that is about $2,190 a month.',
  };
}

function starvedVerdict(s: GpuStats): Verdict {
  const ev = [
    `GPU-Util averages ${r0(s.util.mean)}% and swings ${r0(s.util.min)}–${r0(s.util.max)}% over ${s.spanS} s`,
  ];
  if (s.maxCorePct === null) {
    return {
      kind: 'cant-tell',
      title: "Can't tell: the GPU waits, but on what?",
      confidence: 'low',
      cardId: 'data-loader-bottleneck',
      evidence: ev,
      next: 'Read the host CPU beside the GPU (the lab server reports it) or profile one step.',
      decide:
        'Host CPU per core: pegged cores mean the input pipeline cannot keep up; idle cores point to I/O, syncs or checkpoints.',
    };
  }
  const pegged = s.maxCorePct >= 85;
  ev.push(`busiest CPU core ${r0(s.maxCorePct)}% (all cores ${r0(s.cpuPct ?? 0)}%)`);
  if (s.samplesPerSec !== null) ev.push(`${r0(s.samplesPerSec)} samples/s`);
  return pegged
    ? {
        kind: 'data-starvation',
        title: 'Data starvation: the GPU waits for the input pipeline',
        confidence: s.util.mean < 60 ? 'high' : 'medium',
        cardId: 'data-loader-bottleneck',
        evidence: ev,
        next: 'Load in parallel: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True) on a 16-core host, or move decoding/augmentation to the GPU.',
      }
    : {
        kind: 'data-starvation',
        title: 'GPU waiting on the host (CPU not pegged)',
        confidence: 'low',
        cardId: 'host-device-syncs',
        evidence: ev,
        next: 'Profile one step (Nsight Systems or torch.profiler): look for DataLoader waits on I/O, .item()/.cpu() syncs or checkpoint writes.',
      };
}

function throttledVerdict(s: GpuStats): Verdict | null {
  if (s.clockPct === null || s.clockPct >= 95) return null;
  const limited = s.limitedFrac !== null && s.limitedFrac >= 0.3;
  if (!limited && !(s.limitedFrac === null && s.clockPct < 85)) return null;
  const ev = [
    `SM clock ${r0(s.clockMhz ?? 0)} MHz, ${r0(s.clockPct)}% of its ${r0(s.clockMaxMhz ?? 0)} MHz maximum, while GPU-Util is ${r0(s.util.mean)}%`,
  ];
  ev.push(
    s.reasons.length
      ? `clock event reasons: ${s.reasons.map(([r, f]) => `${r} (${r0(f * 100)}% of samples)`).join(', ')}`
      : 'clock event reasons not reported by this GPU',
  );
  if (s.powerW !== null) ev.push(`power${pctOf(s)}`);
  if (s.tempC !== null) ev.push(`temperature ${r0(s.tempC)} °C`);
  const power = s.reasons.some(([r]) => r === 'SwPowerCap');
  const thermal = s.reasons.some(([r]) => /Thermal/.test(r));
  return {
    kind: 'throttled',
    title: 'Throttled: the clock is held down',
    confidence: limited ? 'high' : 'medium',
    cardId: 'clocks-and-clock-event-reasons',
    evidence: ev,
    next: [
      power
        ? 'SwPowerCap: compare `nvidia-smi -q -d POWER` limits with the default; restore it with `nvidia-smi -pl <watts>` (root).'
        : '',
      thermal ? 'Thermal slowdown: check airflow, fans and inlet temperature before anything else.' : '',
      !power && !thermal ? 'Read `nvidia-smi -q -d PERFORMANCE` to see which clock event reason is active.' : '',
    ]
      .filter(Boolean)
      .join(' '),
  };
}

function busyVerdict(s: GpuStats): Verdict {
  const w = `over ${s.spanS} s`;
  if (s.sm === null) {
    if (s.powerPct !== null && s.powerPct < 40) {
      return {
        kind: 'small-kernels',
        title: 'Busy in time, not in space (judged from power)',
        confidence: 'medium',
        cardId: 'small-batches-small-kernels',
        evidence: [
          `GPU-Util ${r0(s.util.mean)}%${pctOf(s)} ${w}: kernels run all the time but draw little power`,
          'SM activity not available (no GPM on this GPU)',
        ],
        next: 'Give each kernel more work: a larger batch, fused ops (torch.compile) or CUDA Graphs for launch overhead.',
      };
    }
    return {
      kind: 'cant-tell',
      title: "Can't tell: busy, but with what?",
      confidence: 'low',
      cardId: 'gpm-on-hopper',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}%${pctOf(s)} ${w}: a kernel ran ${r0(s.util.mean)}% of the time, which says nothing about how much of the GPU it used`,
      ],
      next: 'Read the profiling counters, or run Nsight Compute on the hottest kernels.',
      decide:
        'SM, tensor and DRAM activity (GPM on Hopper or newer; DCGM fields 1002, 1004, 1005 on A100/V100): low SM activity = small kernels, high DRAM with idle tensor pipes = memory-bound, high tensor = compute-bound.',
    };
  }
  const sm = r0(s.sm);
  if (s.sm < 50) {
    return {
      kind: 'small-kernels',
      title: 'Busy in time, not in space: small kernels',
      confidence: s.sm < 35 ? 'high' : 'medium',
      cardId: 'small-batches-small-kernels',
      evidence: [
        `GPU-Util ${r0(s.util.mean)}% but SM activity ${sm}% ${w}`,
        ...(s.powerW !== null ? [`power${pctOf(s)}`] : []),
        ...(s.maxCorePct !== null && s.maxCorePct >= 85
          ? [`one CPU core at ${r0(s.maxCorePct)}%: Python launching kernels`]
          : []),
      ],
      next: 'Give each kernel more work: raise the batch size, fuse ops (torch.compile) or capture the step in CUDA Graphs to cut launch overhead.',
    };
  }
  const t = s.tensor ?? 0;
  if (s.dram !== null && s.dram >= 60 && t < 25) {
    return {
      kind: 'memory-bound',
      title: 'Memory-bound: HBM bandwidth is the limit',
      confidence: 'high',
      cardId: 'memory-bound-vs-compute-bound',
      evidence: [
        `DRAM activity ${r0(s.dram)}% (the practical ceiling is about 80%) while tensor activity is ${r0(t)}% ${w}`,
        `SM activity ${sm}%, GPU-Util ${r0(s.util.mean)}%`,
      ],
      next: 'Move fewer bytes per FLOP: fuse elementwise ops and norms (torch.compile), keep activations in bf16, avoid extra passes over big tensors.',
    };
  }
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
  return {
    kind: 'compute-bound',
    title: 'Healthy: compute-bound',
    confidence: s.sm >= 80 ? 'high' : 'medium',
    cardId: 'throughput-not-utilization',
    evidence: [
      `SM activity ${sm}%, tensor activity ${r0(t)}%, DRAM ${r0(s.dram ?? 0)}% ${w}`,
      ...(s.powerW !== null ? [`power${pctOf(s)}`] : []),
      ...(s.sm < 80 ? ['SM activity below 80%: NVIDIA calls ≥ 80% necessary (not sufficient) for effective use'] : []),
    ],
    next: 'Judge it by useful work now: tokens/s and MFU against the dense peak, not by GPU-Util.',
  };
}

/** True when a GPU reads busy but does nothing: 100% GPU-Util at idle power (an NCCL spin-wait). */
function spinning(s: GpuStats): boolean {
  return s.util.mean >= 90 && (s.sm === null || s.sm < 10) && s.powerPct !== null && s.powerPct < 25;
}

/** The per-GPU verdict, before looking across GPUs. */
export function diagnoseGpu(s: GpuStats): Verdict {
  if (s.util.n === 0) {
    return {
      kind: 'cant-tell',
      title: "Can't tell: no GPU-Util readings",
      confidence: 'low',
      cardId: 'nvml',
      evidence: [s.utilWhy ?? 'GPU-Util not reported'],
      next: 'Check that the lab server can read this GPU (`nvidia-smi` on the same machine).',
      decide: 'Any GPU-Util reading.',
    };
  }
  if (s.util.mean < 5 && !(s.util.p90 >= 15 && (s.maxCorePct ?? 0) >= 85)) return idleVerdict(s);
  if (s.util.mean < 85) return starvedVerdict(s);
  return throttledVerdict(s) ?? busyVerdict(s);
}

/**
 * Diagnoses the last `windowS` seconds of `messages` (oldest first) across every GPU.
 * Needs at least 5 s of samples; before that it says it is still collecting.
 */
export function diagnose(messages: readonly StreamMessage[], windowS = DIAGNOSIS_WINDOW_S): Diagnosis {
  const last = messages[messages.length - 1];
  const from = (last?.sampledAtMs ?? 0) - windowS * 1000;
  const window = messages.filter((m) => m.sampledAtMs > from);
  const first = window[0];
  if (!last || !first || last.sampledAtMs - first.sampledAtMs < 4500) {
    return {
      kind: 'cant-tell',
      title: 'Collecting samples…',
      confidence: 'low',
      evidence: [],
      next: 'Wait a few seconds.',
      cardId: 'sampling-periods-and-averaging',
      decide: 'At least 5 s of samples.',
      gpus: [],
    };
  }
  const stats = last.gpus.map((_, i) => gpuStats(window, i));
  const all = stats.map((_, i) => i);
  const tput = stats[0];
  const zeroTput =
    tput !== undefined && (tput.tokensPerSec === 0 || tput.stepsPerSec === 0 || tput.samplesPerSec === 0);
  const someTput =
    tput !== undefined && [tput.tokensPerSec, tput.stepsPerSec, tput.samplesPerSec].some((x) => x !== null && x > 0);
  const spin = all.filter((i) => spinning(stats[i] as GpuStats));
  const stalled = all.filter(
    (i) => !spin.includes(i) && (stats[i] as GpuStats).util.mean < 5 && ((stats[i] as GpuStats).processCount ?? 0) > 0,
  );
  const quiet =
    spin.length > 0 &&
    !someTput &&
    (stats[spin[0] as number] as GpuStats).memUtil !== null &&
    ((stats[spin[0] as number] as GpuStats).memUtil ?? 0) < 2;
  if (spin.length > 0 && (zeroTput || stalled.length > 0 || quiet)) {
    const s = stats[spin[0] as number] as GpuStats;
    return {
      kind: 'communication-hang',
      title: 'Communication hang: 100% GPU-Util at idle power',
      confidence: zeroTput || stalled.length ? 'high' : 'medium',
      cardId: 'nccl-hangs-read-100',
      gpus: spin,
      evidence: [
        `GPU${spin.length > 1 ? 's' : ''} ${spin.join(', ')}: GPU-Util ${r0(s.util.mean)}%${pctOf(s)}, SM activity ${s.sm === null ? 'n/a' : `${r0(s.sm)}%`} over ${s.spanS} s`,
        ...(stalled.length
          ? [`GPU ${stalled.join(', ')}: 0% with its process still holding memory (the rank the others wait for)`]
          : []),
        ...(zeroTput ? ['throughput 0: no steps complete'] : []),
      ],
      next: 'Find the stalled rank (py-spy dump on each rank, NCCL_DEBUG=INFO); set a collective timeout (init_process_group(timeout=…)) so a hang fails fast and restarts.',
    };
  }
  const busy = all.filter((i) => (stats[i] as GpuStats).util.mean >= 85);
  if (busy.length >= 2 && busy.length === all.length) {
    const pw = busy.map((i) => (stats[i] as GpuStats).powerPct).filter((x): x is number => x !== null);
    const sms = busy.map((i) => (stats[i] as GpuStats).sm).filter((x): x is number => x !== null);
    const spreadPw = pw.length === busy.length ? Math.max(...pw) - Math.min(...pw) : 0;
    const spreadSm = sms.length === busy.length ? Math.max(...sms) - Math.min(...sms) : 0;
    if (spreadPw >= 12 || spreadSm >= 12) {
      const key = (i: number) => (stats[i] as GpuStats).sm ?? (stats[i] as GpuStats).powerPct ?? 0;
      const slow = busy.reduce((a, b) => (key(b) > key(a) ? b : a));
      const s = stats[slow] as GpuStats;
      const others = busy.filter((i) => i !== slow).map((i) => stats[i] as GpuStats);
      return {
        kind: 'straggler',
        title: `Straggler: every rank waits for GPU ${slow}`,
        confidence: 'medium',
        cardId: 'distributed-overlap-and-stragglers',
        gpus: all,
        evidence: [
          `all ${busy.length} GPUs read ≥ 85% GPU-Util over ${s.spanS} s`,
          `GPU ${slow}: SM activity ${s.sm === null ? 'n/a' : `${r0(s.sm)}%`}${pctOf(s)}; the others: ${others.map((o) => (o.sm === null ? `${r0(o.powerW ?? 0)} W` : `${r0(o.sm)}%`)).join(', ')} (they wait in the all-reduce)`,
        ],
        next: 'Balance the work per rank: bucket sequences by length or balance tokens per batch; check that one rank is not doing extra work (logging, eval).',
      };
    }
  }
  const order: BottleneckKind[] = [
    'data-starvation',
    'throttled',
    'small-kernels',
    'memory-bound',
    'idle-allocated',
    'compute-bound',
    'cant-tell',
    'idle',
  ];
  const verdicts = stats.map(diagnoseGpu);
  const rank = (v: Verdict) => order.indexOf(v.kind);
  const worst = verdicts.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  const same = all.filter((i) => (verdicts[i] as Verdict).kind === worst.kind);
  return { ...worst, gpus: same };
}
