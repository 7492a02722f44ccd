/**
 * `node bench/trace-2gb.ts [--gb=2.2]`: a trace larger than 2 GB (more than a string or, in some browsers, an
 * ArrayBuffer can hold) read as the page's worker and the CLI read files, from a generated stream (a real
 * trace's steps repeated, bench/trace-gen.ts) so nothing is written to disk. Prints the bytes streamed, the
 * events kept, the time and the peak memory (heap + ArrayBuffers) against the bytes; or the message a user
 * would see when this device cannot hold it.
 */
import { parseTraceStream, analyzeTraces } from '../src/lib/trace/index.ts';
import { repeatedTraceStream } from './trace-gen.ts';
import { watchPeakMemory } from './peak-memory.ts';

const gb = Number(process.argv.find((a) => a.startsWith('--gb='))?.split('=')[1] ?? 2.2);
const bytes = gb * 1e9;
let streamed = 0;
const source = repeatedTraceStream(bytes).pipeThrough(
  new TransformStream<Uint8Array, Uint8Array>({
    transform(c, ctl) {
      streamed += c.byteLength;
      ctl.enqueue(c);
    },
  }),
);
const memory = watchPeakMemory(50);
const t0 = performance.now();
try {
  const trace = await parseTraceStream(source);
  const report = analyzeTraces([{ label: 'generated', trace }]);
  const peak = memory.peak();
  console.log(
    `${(streamed / 1e9).toFixed(2)} GB streamed (2^31 = 2.15 GB), ${trace.events.count} events kept, ${((performance.now() - t0) / 1000).toFixed(1)} s, peak memory ${(peak / 1e6).toFixed(0)} MB = ${(peak / streamed).toFixed(3)}× the trace; verdict ${report.verdict.kind}`,
  );
} catch (e) {
  console.log(`${(streamed / 1e9).toFixed(2)} GB streamed, then: ${(e as Error).message}`);
} finally {
  memory.stop();
}
