/**
 * A rank's trace report as the diagnosis engine's profiler readings (src/lib/diagnose/profile.ts), so one engine
 * decides for counters and traces. Every share is HTA's quantity: the GPU's idle share is the temporal breakdown's
 * idle time over the span; host wait is HTA's idle category (a kernel launched after the previous one on its stream
 * ended), split by what the launching thread was doing (causes.ts). Host wait is merged over streams and can exceed
 * the GPU-wide idle time on a multi-stream rank, so each cause's share of idle time is
 * min(1, host wait / idle) × (cause / host wait). A reading the trace cannot give is null with the reason.
 */
import type { ProfileReadings } from '../diagnose/profile.ts';
import type { RankReport } from './report-types.ts';

const NO_STEPS =
  'the trace has no ProfilerStep#N: record it with a torch.profiler schedule and call prof.step() once per step';

/** The readings of one rank's report. */
export function traceReadings(r: RankReport): ProfileReadings {
  const t = r.temporal;
  const h = r.host;
  const n = r.steps.length;
  const nullReasons: ProfileReadings['nullReasons'] = {};
  if (n === 0)
    for (const f of [
      'steps',
      'stepMs',
      'launchesPerStep',
      'syncsPerStep',
      'syncMsPerStep',
      'dataLoaderMsPerStep',
    ] as const)
      nullReasons[f] = NO_STEPS;
  const perStep = (pick: (s: RankReport['steps'][number]) => number): number | null =>
    n > 0 ? r.steps.reduce((a, s) => a + pick(s), 0) / n : null;
  // Launch statistics cover HTA's window, which leaves out the last step when there are two or more (view.ts).
  const windowSteps = n >= 2 ? n - 1 : n;
  const hostShare = t.idleUs > 0 ? Math.min(1, h.hostWaitUs / t.idleUs) : 0;
  const ofIdle = (us: number): number => (h.hostWaitUs > 0 ? (hostShare * us) / h.hostWaitUs : 0);
  const stepUs = perStep((s) => s.durUs);
  const ms = (us: number | null): number | null => (us === null ? null : us / 1000);
  if (t.spanUs <= 0) nullReasons.gpuIdleShare = 'the trace has no GPU span';
  if (!r.launch && n > 0)
    nullReasons.launchesPerStep = 'no launch call in the trace pairs with a GPU event by correlation id';
  return {
    source: `torch.profiler trace ${r.label}${r.rank === null ? '' : `, rank ${r.rank}`}${n ? `, ${n} steps` : ''}`,
    steps: n > 0 ? n : null,
    stepMs: ms(stepUs),
    gpuIdleShare: t.spanUs > 0 ? t.idlePct / 100 : null,
    launchShare: ofIdle(h.byCause.overhead + h.byCause.optimizer),
    launchesPerStep: r.launch && windowSteps > 0 ? r.launch.launches / windowSteps : null,
    syncsPerStep: perStep((s) => s.syncCalls),
    syncMsPerStep: ms(perStep((s) => s.syncUs)),
    syncShare: ofIdle(h.byCause.sync),
    dataLoaderMsPerStep: ms(perStep((s) => s.dataLoaderUs)),
    dataLoaderShare: ofIdle(h.byCause.dataLoader),
    nullReasons,
  };
}
