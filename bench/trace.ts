/**
 * `node bench/trace.ts [--mb=100]`: parse and analysis time of a synthetic Kineto trace of about N MB (a
 * training loop: steps, a DataLoader wait, launches and kernels on two streams, NCCL), read the way the CLI
 * reads files, with the peak memory it took beside the trace's size. Prints one Markdown table.
 * Budgets (issue #25): 100 MB in ≤ 5 s, peak memory ≤ 2× the uncompressed trace.
 */
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { analyzeTraces, parseTraceStream } from '../src/lib/trace/index.ts';
import { watchPeakMemory } from './peak-memory.ts';

const mb = Number(process.argv.find((a) => a.startsWith('--mb='))?.split('=')[1] ?? 100);
const file = join(tmpdir(), `saturate-trace-${mb}mb.json`);

/** Writes the synthetic trace, one event per line as Kineto does, until it reaches `mb`. */
async function writeTrace(): Promise<void> {
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', r)));
  await write('{\n  "schemaVersion": 1,\n  "distributedInfo": {"rank": 0, "world_size": 1},\n  "traceEvents": [\n');
  let bytes = 0;
  let corr = 1;
  let first = true;
  const ev = (e: Record<string, unknown>) => {
    const s = `${first ? '' : ',\n'}  ${JSON.stringify(e)}`;
    first = false;
    bytes += s.length;
    return s;
  };
  const kernel =
    'void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_tn_align8>(cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_tn_align8::Params)';
  for (let step = 1; bytes < mb * 1e6; step++) {
    const t0 = step * 20_000;
    let chunk = ev({
      ph: 'X',
      cat: 'user_annotation',
      name: `ProfilerStep#${step}`,
      pid: 1,
      tid: 1,
      ts: t0,
      dur: 19_000,
    });
    chunk += ev({
      ph: 'X',
      cat: 'cpu_op',
      name: 'enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__',
      pid: 1,
      tid: 1,
      ts: t0,
      dur: 3000,
    });
    for (let k = 0; k < 300; k++) {
      const at = t0 + 3000 + k * 50;
      const c = corr++;
      chunk += ev({
        ph: 'X',
        cat: 'cpu_op',
        name: 'aten::mm',
        pid: 1,
        tid: 1,
        ts: at,
        dur: 20,
        args: { 'External id': c },
      });
      chunk += ev({
        ph: 'X',
        cat: 'cuda_runtime',
        name: 'cudaLaunchKernel',
        pid: 1,
        tid: 1,
        ts: at + 5,
        dur: 6,
        args: { correlation: c },
      });
      chunk += ev({ ph: 's', id: c, pid: 1, tid: 1, ts: at + 5, cat: 'ac2g', name: 'ac2g' });
      const nccl = k % 50 === 49;
      chunk += ev({
        ph: 'X',
        cat: 'kernel',
        name: nccl ? 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)' : kernel,
        pid: 0,
        tid: nccl ? 20 : 7,
        ts: at + 15,
        dur: 40,
        args: { device: 0, stream: nccl ? 20 : 7, correlation: c, grid: [108, 1, 1], block: [256, 1, 1] },
      });
      chunk += ev({ ph: 'f', id: c, pid: 0, tid: 7, ts: at + 15, cat: 'ac2g', name: 'ac2g', bp: 'e' });
    }
    await write(chunk);
  }
  await write('\n  ],\n  "traceName": "synthetic"\n}\n');
  await new Promise<void>((r) => out.end(r));
}

await writeTrace();
const size = statSync(file).size;
const memory = watchPeakMemory(20);
const t0 = performance.now();
const trace = await parseTraceStream(
  Readable.toWeb(createReadStream(file, { highWaterMark: 1 << 20 })) as ReadableStream<Uint8Array>,
);
const t1 = performance.now();
const report = analyzeTraces([{ label: 'synthetic', trace }]);
const t2 = performance.now();
const peak = memory.stop();
rmSync(file);
const f = (x: number) => x.toFixed(2);
console.log(`| trace | events | parse s | analyse s | total s (budget 5) | peak memory / trace size (budget 2) | verdict |
|---|---|---|---|---|---|---|
| synthetic ${f(size / 1e6)} MB | ${trace.events.count} | ${f((t1 - t0) / 1000)} | ${f((t2 - t1) / 1000)} | ${f((t2 - t0) / 1000)} | ${f(peak / size)} (${f(peak / 1e6)} MB) | ${report.verdict.kind} |`);
