/**
 * Names the likely bottleneck from a window of samples, with the evidence, the next thing to try
 * and the card that explains it; says "can't tell" and names the one reading that would decide it
 * when the readings it needs are missing. Built for sparse, real telemetry (a snapshot from a forum
 * post, 30 s fleet samples) as much as for the lab server's full stream. Pure.
 *
 * Order, from the issue's principles: clock event reasons decide throttling on their own, before the
 * hang and straggler rules; a hang needs a sign of no progress (throughput 0, SM and DRAM near 0, a
 * stalled rank; SM activity no more than NCCL's spinning blocks hold with tensor and memory quiet at near-idle
 * power, spinning.ts; without SM and tensor activity, memory idle at near-idle power on every rank), never
 * low power alone; low power alone never gives "small kernels"; a straggler is a rank set apart above a tight
 * group, never a spread alone (set-apart.ts); a null is not a zero; the data-wait fraction
 * decides starvation; tensor and DRAM activity stand in when SM activity is missing. Confidence is
 * high only when the readings that decide the verdict are present and agree.
 *
 * @example diagnose(lastThirtySecondsOfMessages).kind // 'data-starvation'
 */
import type { StreamMessage } from '../../protocol/metrics.ts';
import { gpuStats, type GpuStats } from './stats.ts';
import { diagnoseGpu } from './gpu.ts';
import { progressing, r0 } from './format.ts';
import { THROTTLE_SHARE } from './throttle.ts';
import { NEAR_IDLE_SHARE, nearIdlePower, nearIdleWatts } from './idle-power.ts';
import type { BottleneckKind, Diagnosis, Verdict } from './types.ts';
import type { LabSetup } from './setup.ts';
import { withProfile, type ProfileReadings } from './profile.ts';
import { STRAGGLER_GAP_PTS, agrees, setApart } from './set-apart.ts';
import { SPIN_CHANNELS, spinCeilingPct, spinning } from './spinning.ts';

export type { BottleneckKind, Diagnosis } from './types.ts';
export { BOTTLENECK_KINDS } from './types.ts';
export { diagnoseGpu } from './gpu.ts';
export { LAB_SETUPS, LAB_SETUP_IDS, type LabSetup } from './setup.ts';
export { profileVerdict, withProfile, type ProfileReadings, type ProfileVerdict } from './profile.ts';

/** Default window, seconds. */
export const DIAGNOSIS_WINDOW_S = 30;

/** Near zero: an activity reading that says the GPU moves no data and does no math. */
const quiet = (x: number | null): boolean => x !== null && x < 2;

/** A rank that holds its GPU but runs nothing while others are busy: the one the others may wait for. */
const holding = (s: GpuStats): boolean =>
  s.util.n > 0 && s.util.mean < 5 && ((s.processCount ?? 0) > 0 || (s.memUsedGiB ?? 0) >= 1);

/** A GPU nothing runs on and nothing holds: no rank of any job. */
const free = (s: GpuStats): boolean =>
  s.util.n > 0 && s.util.mean < 5 && s.memUsedGiB !== null && s.memUsedGiB < 1 && !s.processCount;

/**
 * Nothing moves without SM or tensor activity to read (dcgm-exporter's default counters export neither): GPU-Util
 * at 95% or more, memory busy at most 2% of the time and board power near idle (idle-power.ts). A kernel runs all the
 * time, yet reads no operands and draws no more than a spinning wait: whatever the kernel is, no work gets done.
 * Only ever read across two or more ranks (hangVerdict): one GPU so is not called hung by comparison.
 *
 * "At most 2%" as shown: NVML's memory utilisation is a whole percent per sample period (gpu-facts 1.2, 1.8), and a
 * window's mean is shown rounded (shown.ts), so a rank whose samples read 0, 1, 2 and 3% around a 1.5% mean shows
 * 2%. On the independent cluster one hung H100 of eight read so (at 91 W, under the 182 W line) and the whole job read
 * "can't tell" under the former "under 2%". Small kernels move memory well above it (4–18% there, 7% in the
 * simulator), and power near idle must hold too.
 */
const stillMem = (x: number | null): boolean => x !== null && x <= 2;
const stillByPower = (s: GpuStats): boolean =>
  s.sm === null &&
  s.tensor === null &&
  s.util.mean >= 95 &&
  (stillMem(s.dram) || stillMem(s.memUtil)) &&
  nearIdlePower(s);

/**
 * The communication-hang verdict, or null when no reading shows the job stopped. `label(i)`: GPU i's number as
 * the evidence prints it (its stream index, which a per-job subset of a host keeps).
 */
function hangVerdict(
  stats: readonly GpuStats[],
  all: readonly number[],
  label: (i: number) => number = (i) => i,
): Diagnosis | null {
  const busy = all.filter((i) => {
    const s = stats[i] as GpuStats;
    return s.util.n > 0 && s.util.mean >= 90 && s.processCount !== 0;
  });
  if (busy.length === 0) return null;
  const t = stats[0] as GpuStats;
  const zeroTput = [t.tokensPerSec, t.stepsPerSec, t.samplesPerSec].some((x) => x === 0) && !progressing(t);
  const doingNothing = busy.filter((i) => {
    const s = stats[i] as GpuStats;
    const bySm =
      (s.sm === null || s.sm < 10) && (quiet(s.dram) || quiet(s.memUtil)) && (s.sm !== null || quiet(s.tensor));
    return bySm || spinning(s) || stillByPower(s);
  });
  // SM activity at 10% or more is read as spinning NCCL blocks only with every other reading agreeing (spinning.ts):
  // a judgement, so never high on its own.
  const bySpin = doingNothing.some((i) => ((stats[i] as GpuStats).sm ?? 0) >= 10);
  const byPower = doingNothing.some(
    (i) => (stats[i] as GpuStats).sm === null && (stats[i] as GpuStats).tensor === null,
  );
  const pcieFlat =
    all.length > 1 && all.every((i) => (stats[i] as GpuStats).pcieBytesPerSec !== null)
      ? all.every((i) => ((stats[i] as GpuStats).pcieBytesPerSec ?? 0) < 1e6)
      : false;
  const stalled = all.filter((i) => !busy.includes(i) && holding(stats[i] as GpuStats));
  const quietAll = doingNothing.length === busy.length;
  // SM or tensor pipes clearly at work contradict "no progress": a loop reporting 0 may just not be counting.
  const working = busy.some(
    (i) => ((stats[i] as GpuStats).sm ?? 0) >= 50 || ((stats[i] as GpuStats).tensor ?? 0) >= 30,
  );
  if (working || progressing(t) || !(zeroTput || (quietAll && (stalled.length > 0 || pcieFlat || busy.length > 1))))
    return null;
  // From power, every GPU must agree: busy and still, the stalled rank, or free (no rank). One at work: the job moves.
  const other = (i: number) => !busy.includes(i) && !stalled.includes(i) && !free(stats[i] as GpuStats);
  if (byPower && !zeroTput && all.some(other)) return null;
  const s = stats[busy[0] as number] as GpuStats;
  const names = (ix: readonly number[]): string => ix.map(label).join(', ');
  const powerNote =
    s.powerW === null
      ? ''
      : ` at ${r0(s.powerW)} W${s.powerPct === null ? '' : ` (${r0(s.powerPct)}% of the ${r0(s.powerLimitW ?? 0)} W limit)`}`;
  return {
    kind: 'communication-hang',
    title: 'Communication hang: busy GPUs, no progress',
    // Judged from power where SM and tensor activity are missing: medium, whatever else agrees, unless steps stopped.
    confidence: zeroTput || (!byPower && !bySpin && quietAll && stalled.length > 0) ? 'high' : 'medium',
    cardId: 'nccl-hangs-read-100',
    gpus: busy,
    evidence: [
      `GPU${busy.length > 1 ? 's' : ''} ${names(busy)}: GPU-Util ${r0(s.util.mean)}%${powerNote}, SM activity ${s.sm === null ? 'not reported' : `${r0(s.sm)}%`}, DRAM ${s.dram === null ? (s.memUtil === null ? 'not reported' : `busy ${r0(s.memUtil)}% of the time`) : `${r0(s.dram)}%`} over ${s.spanS} s`,
      ...(stalled.length
        ? [`GPU ${names(stalled)}: 0% with its process still holding memory (the rank the others wait for)`]
        : []),
      ...(zeroTput ? ['throughput 0: no steps complete'] : []),
      ...(pcieFlat ? ['PCIe traffic flat near 0 on every GPU'] : []),
      ...(bySpin
        ? [
            `SM activity up to ${spinCeilingPct(s) ?? 0}% is what NCCL's spinning blocks hold (${SPIN_CHANNELS} channels, one SM each, of this GPU's SMs), with tensor pipes and memory quiet at near-idle power: nothing moves`,
          ]
        : []),
      ...(byPower
        ? [
            `SM and tensor activity not exported: at ≥ 95% GPU-Util, memory busy at most 2% of the time and power at most ${nearIdleWatts(s) ?? 0} W (near idle: ${Math.round(NEAR_IDLE_SHARE * 100)}% of its TDP), nothing moves`,
          ]
        : []),
    ],
    next: 'Find the stalled rank (py-spy dump on each rank, NCCL_DEBUG=INFO); set a collective timeout (init_process_group(timeout=…)) so a hang fails fast and restarts.',
  };
}

/**
 * Every rank busy, and one rank (or a few) set apart above a tight group in SM or tensor activity, with tensor
 * activity and power agreeing where read: the others wait for it in the all-reduce (set-apart.ts gives the principle
 * and its numbers). An even spread of levels is not a straggler.
 */
function stragglerVerdict(
  stats: readonly GpuStats[],
  all: readonly number[],
  label: (i: number) => number = (i) => i,
): Diagnosis | null {
  const busy = all.filter((i) => (stats[i] as GpuStats).util.n > 0 && (stats[i] as GpuStats).util.mean >= 85);
  if (busy.length < 2 || busy.length !== all.length) return null;
  const bySm = busy.every((i) => (stats[i] as GpuStats).sm !== null);
  const work = (i: number): number | null => (bySm ? (stats[i] as GpuStats).sm : (stats[i] as GpuStats).tensor);
  const w = busy.map(work);
  if (w.some((x) => x === null)) return null;
  const apart = setApart(w as number[]);
  if (apart.length === 0) return null;
  const second = [
    ...(bySm ? [busy.map((i) => (stats[i] as GpuStats).tensor)] : []),
    busy.map((i) => (stats[i] as GpuStats).powerW),
  ];
  if (!second.every((v) => agrees(v, apart))) return null;
  const slow = apart.map((k) => busy[k] as number);
  const s = stats[slow[0] as number] as GpuStats;
  const metric = bySm ? 'SM activity' : 'tensor activity';
  const names = slow.map(label).join(', ');
  const which = `GPU${slow.length > 1 ? 's' : ''} ${names}`;
  const others = busy.filter((i) => !slow.includes(i)).map((i) => `${r0(work(i) ?? 0)}%`);
  return {
    kind: 'straggler',
    title: `Straggler: every rank waits for ${which}`,
    confidence: 'medium',
    cardId: 'distributed-overlap-and-stragglers',
    gpus: [...all],
    evidence: [
      `all ${busy.length} GPUs read ≥ 85% GPU-Util over ${s.spanS} s`,
      `${which}: ${metric} ${slow.map((i) => `${r0(work(i) ?? 0)}%`).join(', ')}, at least ${STRAGGLER_GAP_PTS} points above the others and apart from them: ${others.join(', ')} (they wait in the all-reduce)`,
    ],
    next: 'Balance the work per rank: bucket sequences by length or balance tokens per batch; check that one rank is not doing extra work (logging, eval).',
  };
}

const ORDER: BottleneckKind[] = [
  'throttled',
  'data-starvation',
  'small-kernels',
  'memory-bound',
  'idle-allocated',
  'compute-bound',
  'cant-tell',
  'idle',
];

/**
 * Diagnoses the last `windowS` seconds of `messages` (oldest first) across every GPU.
 * Needs at least 5 s of samples (and two samples); before that it says it is still collecting.
 * `setup`: what the lab's own workload has ruled out (setup.ts), never named as the cause; none outside a lab.
 * `profiles`: profiler readings per GPU position (profile.ts), e.g. from a trace of the same run; they decide only
 * where the counters say "can't tell".
 */
export function diagnose(
  messages: readonly StreamMessage[],
  windowS = DIAGNOSIS_WINDOW_S,
  setup: readonly LabSetup[] = [],
  profiles: readonly (ProfileReadings | null | undefined)[] = [],
): Diagnosis {
  const last = messages[messages.length - 1];
  const from = (last?.sampledAtMs ?? 0) - windowS * 1000;
  const window = messages.filter((m) => m.sampledAtMs >= from);
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
  const verdicts = stats.map((s, i) => withProfile(diagnoseGpu(s, setup), profiles[i], setup));
  // GPUs are named by their stream index: the same as their position, except in a subset of a host's GPUs (one job).
  const label = (i: number): number => last.gpus[i]?.index ?? i;
  // Clock event reasons decide on their own, before any rule across GPUs: a GPU the reasons call throttled is not
  // read as hung, and the ranks it holds back are not stragglers on their own evidence (throttledAmongClear names it).
  const reasonThrottled = stats.some((s) => (s.limitingFrac ?? 0) >= THROTTLE_SHARE);
  const hang = reasonThrottled ? null : hangVerdict(stats, all, label);
  if (hang) return hang;
  const straggler = reasonThrottled ? null : stragglerVerdict(stats, all, label);
  if (straggler) return straggler;
  const busyOthers = all.some((i) => (stats[i] as GpuStats).util.mean >= 85 && (stats[i] as GpuStats).util.n > 0);
  const idleHeld = all.filter((i) => (verdicts[i] as Verdict).kind === 'idle-allocated');
  if (busyOthers && idleHeld.length > 0)
    return {
      kind: 'cant-tell',
      title: "Can't tell: some GPUs busy, others idle with memory held",
      confidence: 'low',
      cardId: 'nccl-hangs-read-100',
      gpus: idleHeld,
      evidence: [
        `GPU ${idleHeld.map(label).join(', ')}: GPU-Util under 5% with memory held, while GPU ${all
          .filter((i) => !idleHeld.includes(i))
          .map(label)
          .join(', ')} read busy`,
      ],
      next: 'Check whether steps still advance: a rank between steps is normal, a rank that never returns hangs the others.',
      decide:
        'Throughput (steps/s): advancing means a rank caught between steps (fine); 0 means a hang and the idle GPU is the rank the others wait for.',
    };
  const rank = (v: Verdict) => ORDER.indexOf(v.kind);
  const worst = verdicts.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  const same = all.filter((i) => (verdicts[i] as Verdict).kind === worst.kind);
  if (worst.kind === 'throttled') return throttledAmongClear(worst, same, stats, label);
  return { ...worst, gpus: same };
}

/**
 * Throttled GPUs beside GPUs whose clock event reasons are read and clear: in a synchronous job the
 * throttled ones pace every step (a straggler), so the verdict says which GPUs hold the others back.
 * The reasons decide it; the job's shape is not known, so the straggler part is said conditionally.
 */
function throttledAmongClear(
  worst: Verdict,
  throttled: number[],
  stats: readonly GpuStats[],
  label: (i: number) => number,
): Diagnosis {
  const clear = stats
    .map((s, i) => ({ s, i }))
    .filter(({ s, i }) => !throttled.includes(i) && s.reasonSamples > 0 && (s.limitingFrac ?? 0) < THROTTLE_SHARE)
    .map(({ i }) => i);
  if (clear.length === 0) return { ...worst, gpus: throttled };
  const which = `GPU${throttled.length > 1 ? 's' : ''} ${throttled.map(label).join(', ')}`;
  return {
    ...worst,
    title: `Throttled: ${which} of ${stats.length} held down`,
    gpus: throttled,
    evidence: [
      ...worst.evidence,
      `${clear.length} other GPU${clear.length > 1 ? 's' : ''} report no limiting reason: if they share one synchronous job (data or tensor parallel), every rank waits for ${which} at each collective (a straggler)`,
    ],
  };
}
