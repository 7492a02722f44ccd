/**
 * Traces too large for a string or for this device: read as a stream, never held whole, and refused in words
 * (never a crash) when the table of events would not fit.
 */
import { describe, expect, test } from 'vitest';
import { parseTraceStream, TraceError } from '../../src/lib/trace/index.ts';
import { repeatedTraceStream } from '../../bench/trace-gen.ts';

/** A stream of `mb` MB: the same 1 MB block (a kernel and its launch, then spaces) again and again. */
function paddedTrace(mb: number): { stream: ReadableStream<Uint8Array>; bytes: number; events: number } {
  const enc = new TextEncoder();
  const pair =
    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},\n' +
    '{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":40,"args":{"stream":7,"correlation":1}},\n';
  const block = enc.encode(pair + ' '.repeat((1 << 20) - pair.length));
  const head = enc.encode('{"traceEvents": [\n');
  const tail = enc.encode('{"ph":"X","cat":"kernel","name":"end","pid":0,"tid":7,"ts":99,"dur":1}\n]}\n');
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    start: (ctl) => ctl.enqueue(head),
    pull(ctl) {
      if (sent++ < mb) ctl.enqueue(block);
      else {
        ctl.enqueue(tail);
        ctl.close();
      }
    },
  });
  return { stream, bytes: head.length + mb * block.length + tail.length, events: 2 * mb + 1 };
}

describe('a trace larger than 2 GB', () => {
  test('is read as a stream to its last event: more bytes than a string or a 2 GB ArrayBuffer holds', async () => {
    const mb = 2060; // 2060 MiB = 2.16 GB > 2^31 bytes
    const t = paddedTrace(mb);
    let last = 0;
    const trace = await parseTraceStream(t.stream, (n) => (last = n));
    expect(last).toBe(t.bytes);
    expect(t.bytes).toBeGreaterThan(2 ** 31);
    expect(trace.events.count).toBe(t.events);
    expect(trace.events.strings[trace.events.name[t.events - 1]!]).toBe('end');
  }, 600_000);

  test('more events than this device may keep: says the trace is too large and how far it got, and stops reading', async () => {
    let streamed = 0;
    const total = 30e6;
    const source = repeatedTraceStream(total).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(c, ctl) {
          streamed += c.byteLength;
          ctl.enqueue(c);
        },
      }),
    );
    const e = await parseTraceStream(source, undefined, { maxEvents: 20_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TraceError);
    expect((e as TraceError).code).toBe('too-large');
    expect((e as Error).message).toMatch(
      /^This trace is larger than this device can read: it stopped at 0\.0 million events, after 0\.0\d GB of the file\. Record fewer steps/,
    );
    expect(streamed).toBeLessThan(total / 2);
  }, 120_000);
});
