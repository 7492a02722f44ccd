/**
 * `npm run trace -- rank0.json.gz [rank1.json.gz …] [--json]`: why a PyTorch job left its GPU idle, read
 * from its profiler traces (one per rank): HTA's breakdowns, the host-wait causes and one verdict.
 * Exit codes: 0 analysed, 1 bad flags or unreadable input, 3 no GPU activity in the traces.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeTraces, TraceError, type TraceInput } from '../src/lib/trace/index.ts';
import { reportJson, reportText } from '../src/lib/trace/format.ts';
import { parseTraceFile } from './trace-file.ts';

export const EXIT = { ok: 0, usage: 1, noGpu: 3 } as const;

export const TRACE_USAGE = `Usage: npm run trace -- <trace.json[.gz]> [more ranks…] [--json]

Reads PyTorch profiler (Kineto) traces, one file per rank, and says why the GPU waited: HTA's temporal
breakdown, idle time per stream, kernels, overlap, launch statistics and steps, what the host did during
host wait, and one verdict with what to change.

  --json   JSON on stdout (verdict, temporal, idle, steps, ranks, across, warnings)
  --help

Exit codes: 0 analysed, 1 bad flags or unreadable input, 3 no GPU activity in the traces.`;

/** Runs the CLI; returns the exit code. */
export async function runTrace(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  let files: string[];
  let json: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    });
    if (values.help) {
      out(`${TRACE_USAGE}\n`);
      return EXIT.ok;
    }
    if (positionals.length === 0) throw new Error('give at least one trace file');
    files = positionals;
    json = values.json;
  } catch (e) {
    err(`trace: ${(e as Error).message}\n\n${TRACE_USAGE}\n`);
    return EXIT.usage;
  }
  const inputs: TraceInput[] = [];
  for (const file of files) {
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
    } catch {
      err(`trace: cannot read ${file}: no such file. Give the path of a trace torch.profiler wrote.\n`);
      return EXIT.usage;
    }
    try {
      inputs.push({ label: basename(file), trace: await parseTraceFile(file) });
    } catch (e) {
      err(`trace: ${file}: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
  }
  try {
    const report = analyzeTraces(inputs);
    out(json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : reportText(report));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof TraceError) {
      err(`trace: ${e.message}\n`);
      return e.code === 'no-gpu' ? EXIT.noGpu : EXIT.usage;
    }
    throw e;
  }
}

if (import.meta.main) process.exitCode = await runTrace(process.argv.slice(2));
