/**
 * The trace half of `npm run check:gpu-labs` (gpu-labs.ts): the trace CLI's verdict on the trace a lab workload
 * wrote with `--profile DIR` (workloads/_common.py names it DIR/<label>.pt.trace.json.gz), as lines to print.
 * Runs scripts/trace.ts, the script `npm run trace -- FILE --json` runs, so it needs no GPU and is tested here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `npm run check:gpu-labs` says on a machine without an NVIDIA GPU, after the reason. */
export const NEEDS_GPU =
  'npm run check:gpu-labs needs an NVIDIA GPU with its driver: it runs each lab workload, samples it through NVML and analyses the torch.profiler trace it writes. Nothing was recorded or analysed here.';

const TRACE_CLI = fileURLToPath(new URL('./trace.ts', import.meta.url));

/** The trace CLI's verdict on the run's trace, as lines to print (the CLI's own message when it has none). */
export function traceLines(dir: string): string[] {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.pt.trace.json.gz')) : [];
  if (files.length === 0)
    return [`trace: none written to ${dir} (the run ended before its profiled steps, or torch.profiler failed)`];
  const file = join(dir, files[0]!);
  const r = spawnSync(process.execPath, [TRACE_CLI, file, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const why = r.stderr.trim().split('\n')[0] ?? '';
  // Exit 3 is the CLI's "no GPU activity": the right reading of the idle lab's trace, a failure for any other.
  if (r.status === 3) return [`trace ${file}: no GPU activity in the trace (exit 3): ${why}`];
  if (r.status !== 0) return [`trace ${file}: exit ${r.status}: ${why}`];
  const j = JSON.parse(r.stdout) as {
    verdict: { kind: string; confidence: string; title: string; evidence: string[] };
  };
  return [
    `trace ${file}: ${j.verdict.kind} (${j.verdict.confidence}) "${j.verdict.title}"`,
    ...j.verdict.evidence.map((e) => `     - ${e}`),
  ];
}
