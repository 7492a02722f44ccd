/**
 * The verdict for one GPU over the window, in the order the evidence allows: clock event reasons
 * first (they decide throttling on their own), then what GPU-Util says the GPU did (idle, waiting,
 * busy), and what the finer readings say about why. A reading the source did not give is null and
 * is never read as 0: a rule that needs it says "can't tell" and names it in `decide`. Pure.
 */
import type { GpuStats } from './stats.ts';
import type { Verdict } from './types.ts';
import { throttledVerdict } from './throttle.ts';
import { busyVerdict } from './busy.ts';
import { powerText as power, progressing, r0, rateText as rate } from './format.ts';
import type { LabSetup } from './setup.ts';
import { defaultPriceFor, describePrice, monthlyCostText } from '../gpu-prices.ts';

/** Data-wait share above which the input pipeline is the limit; below it, the wait is elsewhere. */
export const STARVED_WAIT = 0.25;

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

/** Python launches each kernel: not so where the lab's step replays as a CUDA Graph (setup.ts). */
const launchesKernels = (setup: readonly LabSetup[]): boolean => !setup.includes('cuda-graphs');

const decideWait = (setup: readonly LabSetup[]): string =>
  `Data-wait fraction (python/saturate_report.py times the DataLoader): at 25% or more the input pipeline is the limit; near 0 the GPU waits on host syncs${launchesKernels(setup) ? ' or kernel launches' : ''} instead.`;

/** ": at $3.99/GPU-hour, Lambda list price (…), a month of this costs about $2,913" for a priced model, else "". */
function monthText(s: GpuStats): string {
  const price = s.name ? defaultPriceFor(s.name) : null;
  return price ? `: at ${describePrice(price)}, a month of this costs about ${monthlyCostText(price)}` : '';
}

function idleVerdict(s: GpuStats, setup: readonly LabSetup[]): Verdict {
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
      decide: decideWait(setup),
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
      next: `Release it: stop the idle notebook kernel or job (or \`del\` tensors and \`torch.cuda.empty_cache()\`). A GPU bills by the hour, busy or not${monthText(s)}.`,
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
    decide: decideWait(setup),
  };
}

function waitingVerdict(s: GpuStats, setup: readonly LabSetup[]): Verdict {
  const ev = [
    `GPU-Util averages ${r0(s.util.mean)}% and swings ${r0(s.util.min)}–${r0(s.util.max)}% over ${s.spanS} s`,
  ];
  if (s.dataWait !== null && s.dataWait >= STARVED_WAIT) return starved(s, ev);
  if (s.dataWait !== null)
    return {
      kind: 'cant-tell',
      title: "Can't tell: the GPU waits on the host, but not for data",
      confidence: 'low',
      cardId: 'host-device-syncs',
      evidence: [...ev, `the loop waited for data only ${r0(s.dataWait * 100)}% of the time`],
      next: `Profile one step (torch.profiler or Nsight Systems): look for .item()/.cpu() syncs${launchesKernels(setup) ? ', checkpoint writes or launch gaps' : ' or checkpoint writes'}.`,
      decide: `A trace of one step (torch.profiler): gaps after .item()/.cpu() are host syncs${launchesKernels(setup) ? '; thousands of short kernels are launch overhead' : ''}.`,
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
    decide: decideWait(setup),
  };
}

/** The per-GPU verdict, before looking across GPUs. `setup`: what the lab's workload has ruled out (setup.ts). */
export function diagnoseGpu(s: GpuStats, setup: readonly LabSetup[] = []): Verdict {
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
  if (s.util.mean < 5 && s.util.p90 < 15) return idleVerdict(s, setup);
  if (s.util.mean < 85) return waitingVerdict(s, setup);
  return busyVerdict(s, setup);
}
