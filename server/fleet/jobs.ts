/**
 * Verdicts per job: the diagnosis engine run over the GPUs of one job at a time, never across jobs that share a
 * host. A job is a GPU's owner (owner.ts `ownerKey`: the workload's pod, else the HPC job, else the host). Pure.
 *
 * - A straggler or a hang is a job's, found among that job's GPUs only, and goes to every GPU of the job. Two jobs
 *   on one node are judged apart: a hung job beside a healthy one is found, and the healthy one is not called waste.
 * - Clock event reasons come first (the engine: a throttled GPU stops the hang and straggler rules of its job): the
 *   throttled GPU is "throttled", named as what paces its job; the other ranks are judged on their own readings.
 * - A job of one GPU (an independent pod) is never a straggler and never hung by comparison: there is nothing in it
 *   to compare with.
 * - GPUs without owner labels on a host form one group, the host's own (`host:<name>`), whether or not other GPUs
 *   of the host have owners. On a Kubernetes node those are GPUs no pod was given: whatever runs there runs outside
 *   the scheduler, most often one job (a `torchrun` started by hand on the free GPUs). They are never grouped with a
 *   pod's GPUs, and a GPU that reads idle (nothing running, nothing held) keeps "idle" in any group: it is no rank of
 *   the job beside it.
 *
 * The verdict now and the window's hours (audit.ts `accumulate`) both come from `verdictsOf` with the same owners,
 * so a segment's hang or straggler is judged per job too.
 */
import { diagnose, type Diagnosis } from '../../src/lib/diagnose/index.ts';
import type { StreamMessage } from '../../src/protocol/metrics.ts';
import type { FleetGpu } from './collect.ts';
import { ownerKey } from './owner.ts';

/** The job a GPU belongs to (owner.ts: pod, else HPC job, else host). */
export const jobOf = (g: FleetGpu): string => ownerKey(g.owner, g.hostname);

/**
 * The positions of a host's GPUs grouped by job, each group in position order, groups in order of their first GPU.
 * Without owners every GPU is one job (the host).
 * @example jobGroups(['pod:a', 'pod:b', 'pod:a'], 3) // [[0, 2], [1]]
 */
export function jobGroups(owners: readonly string[] | undefined, count: number): number[][] {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < count; i++) {
    const key = owners?.[i] ?? '';
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  }
  return [...groups.values()];
}

/** The messages with only the GPUs at `positions` (each sample keeps its own index, which the evidence prints). */
export function messagesOfGpus(
  messages: readonly StreamMessage[],
  positions: readonly number[],
): readonly StreamMessage[] {
  // A host that is one job (most Slurm nodes) keeps its messages as they are: no copy of each of its ~600.
  const whole = (m: StreamMessage) =>
    m.gpus.length === positions.length && positions.every((p, i) => p === i && m.gpus[p] !== undefined);
  if (messages.every(whole)) return messages;
  return messages.map((m) => ({ ...m, gpus: positions.flatMap((p) => (m.gpus[p] ? [m.gpus[p]] : [])) }));
}

/** The kinds that are one job's finding, given to every GPU of the job. */
const JOB_KINDS = new Set<Diagnosis['kind']>(['communication-hang', 'straggler']);

/**
 * The per-GPU verdicts of one host's messages (a Diagnosis per GPU position; `gpus` in host positions), judged
 * per job: `owners[i]` is GPU i's job (jobOf). The engine runs over each job's GPUs; a hang or a straggler goes to
 * every GPU of that job, the one throttled GPU that paces its job gets the job's verdict, and every other GPU is
 * judged alone.
 */
export function verdictsOf(
  messages: readonly StreamMessage[],
  windowS: number,
  owners?: readonly string[],
): Diagnosis[] {
  const last = messages[messages.length - 1];
  if (!last) return [];
  const out: Diagnosis[] = new Array<Diagnosis>(last.gpus.length);
  const alone = (p: number): Diagnosis => toHost(diagnose(messagesOfGpus(messages, [p]), windowS), [p]);
  for (const group of jobGroups(owners, last.gpus.length)) {
    const job = toHost(diagnose(messagesOfGpus(messages, group), windowS), group);
    if (group.length === 1) {
      out[group[0]!] = job;
      continue;
    }
    for (const p of group) {
      // A GPU nothing runs on and nothing holds is no rank of the job: it stays idle (the host's own group has such).
      if (JOB_KINDS.has(job.kind)) out[p] = job.gpus.includes(p) ? job : idleOr(alone(p), job);
      // One throttled GPU: the job's verdict says it paces the others (several: each keeps its own readings).
      else if (job.kind === 'throttled' && job.gpus.length === 1 && job.gpus[0] === p) out[p] = job;
      else out[p] = alone(p);
    }
  }
  return out;
}

/** The GPU's own verdict where it reads idle (nothing running, nothing held), else the job's. */
const idleOr = (own: Diagnosis, job: Diagnosis): Diagnosis => (own.kind === 'idle' ? own : job);

/** A diagnosis of a subset of a host's GPUs with its `gpus` as host positions. */
function toHost(d: Diagnosis, positions: readonly number[]): Diagnosis {
  return { ...d, gpus: d.gpus.map((i) => positions[i] ?? i) };
}
