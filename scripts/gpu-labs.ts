/**
 * Real-GPU lab check (`node scripts/gpu-labs.ts [OUT_DIR] [seconds]`): runs lab workloads on GPU 0
 * one after another, samples every GPU through the lab's NVML binding every 500 ms, and asks the
 * lab's diagnosis (src/lib/diagnose/index.ts) what it sees, next to what the lab expects. Each run's
 * samples are written as NDJSON to OUT_DIR (default ./gpu-traces), ready for `--source replay:FILE`
 * and as fixtures for the diagnosis tests. Each workload also records a torch.profiler trace of a few
 * steps (`--profile OUT_DIR/traces/<run>`, workloads/_common.py), and the trace CLI (scripts/trace.ts, what
 * `npm run trace -- FILE --json` runs) prints its verdict beside the counters' diagnosis.
 *
 * Imports only Node built-ins, koffi and the repo's own files, so it runs from ../shared/tools/gpu-kit
 * (with PyTorch from the machine's Python). Without a GPU it says so and exits 0. Exit 1 when a
 * diagnosis differs from what its lab expects: a workload or a rule to tune, not necessarily a bug.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamMessage } from '../src/protocol/metrics.ts';
import { diagnose, type BottleneckKind, type LabSetup } from '../src/lib/diagnose/index.ts';
import { createSampler, type Sampler } from '../server/sampler.ts';
import { openGpuOrSayWhy } from './gpu-source.ts';
import { NEEDS_GPU, traceLines } from './gpu-labs-trace.ts';

interface Run {
  lab: string;
  script: string;
  args: string[];
  expect: BottleneckKind[];
  /** The lab's `setup` (content/labs/*.md), passed to the diagnosis as the lab page passes it. */
  setup?: LabSetup[];
}

/**
 * The runs, in order: the "before" state of the labs whose verdict is clearest, and the "after" states whose
 * claims a real GPU should confirm (content/labs/*.md):
 * - busy in time: the step is replayed as a CUDA Graph, so batch 1 reads high GPU-Util with few SMs busy, and
 *   batch 128 fills the SMs (no longer small kernels; its 256-wide matmuls may read memory-bound);
 * - throttling: at the default power limit a sustained bf16 GEMM sits at the cap with SwPowerCap active, which the
 *   diagnosis calls throttled ("expected under dense math"); compute-bound if this GPU stays under its limit.
 */
const RUNS: Run[] = [
  { lab: '1 idle but allocated', script: 'idle_hold.py', args: ['--hold-gib', '8'], expect: ['idle-allocated'] },
  { lab: '2 data loader (before)', script: 'dataloader.py', args: ['--num-workers', '0'], expect: ['data-starvation'] },
  {
    lab: '3 busy in time (before)',
    script: 'small_batch.py',
    args: ['--batch-size', '1'],
    expect: ['small-kernels'],
    setup: ['cuda-graphs'],
  },
  {
    lab: '3 busy in time (after)',
    script: 'small_batch.py',
    args: ['--batch-size', '128'],
    expect: ['compute-bound', 'memory-bound'],
    setup: ['cuda-graphs'],
  },
  { lab: '5 roofline (elementwise)', script: 'roofline.py', args: ['--op', 'elementwise'], expect: ['memory-bound'] },
  { lab: '4 Tensor Cores (after)', script: 'tensor_cores.py', args: ['--dtype', 'bf16'], expect: ['compute-bound'] },
  {
    lab: '6 throttling (default power limit)',
    script: 'sustained_load.py',
    args: [],
    expect: ['throttled', 'compute-bound'],
  },
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Samples every 500 ms for `seconds` through the lab server's sampler (the stream's messages, as served). */
async function record(sampler: Sampler, seconds: number): Promise<StreamMessage[]> {
  const out: StreamMessage[] = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const started = Date.now();
    out.push(sampler.tick().message);
    await sleep(sampler.intervalMs - (Date.now() - started));
  }
  return out;
}

async function main(): Promise<number> {
  const outDir = process.argv[2] ?? 'gpu-traces';
  const seconds = Number(process.argv[3] ?? 20);
  const source = openGpuOrSayWhy();
  if (source === null) {
    console.log(NEEDS_GPU);
    return 0;
  }
  mkdirSync(outDir, { recursive: true });
  const sampler = createSampler({ source, intervalMs: 500 });
  let misses = 0;
  try {
    for (const run of RUNS) {
      const slug = `${run.script.replace('.py', '')}-${run.args.join('').replace(/[^a-z0-9]+/gi, '-') || 'default'}`;
      const traceDir = join(outDir, 'traces', slug);
      const child = spawn(
        'python3',
        [join('workloads', run.script), ...run.args, '--seconds', String(seconds + 12), '--profile', traceDir],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await Promise.race([sleep(8000), exited]); // warm-up: allocation, cuDNN/cuBLAS heuristics, clocks
      if (child.exitCode !== null) {
        console.log(
          `\n${run.lab}: ${run.script} exited ${child.exitCode} before sampling:\n${stderr.trim().slice(-800)}`,
        );
        misses++;
        continue;
      }
      const messages = await record(sampler, seconds);
      child.kill('SIGTERM');
      await exited;
      const file = join(outDir, `${slug}.ndjson`);
      writeFileSync(file, messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
      const verdict = diagnose(messages, seconds, run.setup);
      const ok = run.expect.includes(verdict.kind);
      if (!ok) misses++;
      const g0 = messages.map((m) => m.gpus[0]).filter((g) => g !== undefined);
      const mean = (f: (g: NonNullable<(typeof g0)[number]>) => number | null): string => {
        const xs = g0.map(f).filter((x): x is number => x !== null);
        return xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1) : 'null';
      };
      console.log(
        `\n${run.lab}: python3 workloads/${run.script} ${run.args.join(' ')}  (${messages.length} samples → ${file})`,
      );
      console.log(
        `  GPU 0 means: GPU-Util ${mean((g) => g.gpuUtilPct)}%  SM active ${mean((g) => g.smActivePct)}%  tensor ${mean((g) => g.tensorActivePct)}%  DRAM ${mean((g) => g.dramActivePct)}%  power ${mean((g) => g.powerWatts)} W of ${mean((g) => g.powerLimitWatts)} W  SM clock ${mean((g) => (g.smClockMhz !== null && g.smClockMaxMhz ? (100 * g.smClockMhz) / g.smClockMaxMhz : null))}% of max  host CPU ${(messages.reduce((a, m) => a + (m.host?.cpuPct ?? 0), 0) / messages.length).toFixed(1)}%`,
      );
      console.log(
        `  ${ok ? 'ok  ' : 'MISS'} diagnosis: ${verdict.kind} (${verdict.confidence}) "${verdict.title}"; lab expects ${run.expect.join(' or ')}`,
      );
      for (const e of verdict.evidence) console.log(`       - ${e}`);
      for (const line of traceLines(traceDir)) console.log(`  ${line}`);
    }
  } finally {
    source.close();
  }
  console.log(
    misses === 0
      ? '\nEvery run diagnosed as its lab expects.'
      : `\n${misses} run(s) did not run or did not match (see above).`,
  );
  return misses === 0 ? 0 : 1;
}

process.exitCode = await main();
