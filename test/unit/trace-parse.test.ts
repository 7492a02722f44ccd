import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createTraceParser, parseTraceStream, TraceError, type ParsedTrace } from '../../src/lib/trace/index.ts';
import { cpu, launch, step, traceText, type Ev } from './trace-gen.ts';

/** Parses text fed in chunks of the given sizes (cycled). */
function parseChunks(text: string, sizes: number[] = [text.length]): ParsedTrace {
  const p = createTraceParser();
  let i = 0;
  for (let k = 0; i < text.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    p.push(text.slice(i, i + n));
    i += n;
  }
  return p.end();
}

const bytesStream = (bytes: Uint8Array, chunk = 4096): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(ctl) {
      for (let i = 0; i < bytes.length; i += chunk) ctl.enqueue(bytes.slice(i, i + chunk));
      ctl.close();
    },
  });

/** The rows the table should hold, read with JSON.parse of the whole file. */
function expectedRows(text: string) {
  const doc = JSON.parse(text) as { traceEvents: Ev[] } | Ev[];
  const evs = Array.isArray(doc) ? doc : doc.traceEvents;
  return evs
    .filter((e) => typeof e['dur'] === 'number' && typeof e['cat'] === 'string' && e['cat'] !== 'Trace')
    .map((e) => ({ name: String(e['name']), ts: e['ts'], dur: e['dur'] }));
}

function rows(t: ParsedTrace) {
  const ev = t.events;
  return Array.from({ length: ev.count }, (_, i) => ({
    name: ev.strings[ev.name[i]!]!,
    ts: ev.tsUs[i],
    dur: ev.durUs[i],
  }));
}

const tricky = [
  cpu('aten::mm {not, a "brace"}', 10, 5),
  cpu('path\\to\\file "quoted" \\', 12, 1),
  cpu('line\nbreak, {"x": [1,2]}', 14, 1),
  ...launch('void gemm<{lambda()#1}>(float*, "x")', 20, 30, 10),
  step(1, 0, 100),
];

describe('parsing a trace in chunks', () => {
  test('reads the same events whatever the chunk borders, strings with braces, quotes and backslashes included', () => {
    const text = traceText(tricky, { distributedInfo: { rank: 3, world_size: 8, backend: 'nccl' } });
    const want = expectedRows(text);
    for (const sizes of [[1], [2, 3], [7], [64], [1000]]) expect(rows(parseChunks(text, sizes))).toEqual(want);
  });

  test('reads rank, world size, GPU names and the display unit beside the events', () => {
    const text = traceText(tricky, { distributedInfo: { rank: 3, world_size: 8 }, displayTimeUnit: 'ms' });
    const { meta } = parseChunks(text, [5]);
    expect(meta).toMatchObject({
      rank: 3,
      worldSize: 8,
      deviceNames: ['NVIDIA H100 80GB HBM3'],
      displayTimeUnit: 'ms',
    });
    expect(meta.flowEvents).toBe(2);
  });

  test('reads a bare array of events (the Chrome format without the wrapping object)', () => {
    const text = JSON.stringify(tricky);
    expect(rows(parseChunks(text, [3]))).toEqual(expectedRows(text));
  });

  test('keeps stream and correlation from args, -1 when absent or not a decimal number', () => {
    const t = parseChunks(
      traceText([
        {
          ph: 'X',
          cat: 'cuda_runtime',
          name: 'hipLaunchKernel',
          ts: 1,
          dur: 1,
          args: { stream: '0x0', correlation: 5 },
        },
        { ph: 'X', cat: 'kernel', name: 'k', ts: 2, dur: 1, args: { stream: '7', correlation: 5 } },
        { ph: 'X', cat: 'cpu_op', name: 'op', ts: 3, dur: 1 },
      ]),
    );
    expect(Array.from(t.events.stream)).toEqual([-1, 7, -1]);
    expect(Array.from(t.events.corr)).toEqual([5, 5, -1]);
  });

  test('notes nanosecond resolution when timestamps carry fractions of a microsecond', () => {
    expect(parseChunks(traceText([cpu('a', 1.5, 2)])).meta.resolution).toBe('ns');
    expect(parseChunks(traceText([cpu('a', 1, 2)])).meta.resolution).toBe('us');
  });

  test('any text split anywhere reads as the whole file does (fuzzed)', () => {
    const name = fc.string({ unit: fc.constantFrom('a', '{', '}', '[', ']', '"', '\\', ',', ':', '\n', 'é', ' ') });
    const event = fc.record({
      ph: fc.constantFrom('X', 'i', 's'),
      cat: fc.constantFrom('kernel', 'cpu_op', 'cuda_runtime', 'Trace'),
      name,
      ts: fc.integer({ min: 0, max: 1e9 }),
      dur: fc.option(fc.integer({ min: 0, max: 1e6 }), { nil: undefined }),
      args: fc.option(fc.record({ stream: fc.integer({ min: -1, max: 20 }), note: name }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (events, sizes, pretty) => {
          const text = pretty ? traceText(events as Ev[]) : JSON.stringify({ traceEvents: events });
          expect(rows(parseChunks(text, sizes))).toEqual(expectedRows(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('bad input only ever fails with a TraceError that says what to do (fuzzed)', () => {
    const good = traceText(tricky);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.integer({ min: 0, max: good.length }).map((n) => good.slice(0, n)),
          fc
            .tuple(fc.integer({ min: 0, max: good.length - 1 }), fc.string({ maxLength: 3 }))
            .map(([at, junk]) => good.slice(0, at) + junk + good.slice(at + 1)),
        ),
        fc.integer({ min: 1, max: 50 }),
        (text, size) => {
          try {
            parseChunks(text, [size]);
          } catch (e) {
            expect(e).toBeInstanceOf(TraceError);
            expect((e as Error).message.length).toBeGreaterThan(30);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('unreadable traces', () => {
  const fails = (text: string) => {
    try {
      parseChunks(text, [16]);
    } catch (e) {
      return e as TraceError;
    }
    throw new Error('parsed');
  };

  test('says a file that is not JSON is not JSON', () => {
    const e = fails('PK\u0003\u0004 a zip file');
    expect(e.code).toBe('not-json');
    expect(e.message).toMatch(/not JSON.*Open the \.json or \.json\.gz/);
  });

  test('says JSON without traceEvents is not a profiler trace', () => {
    const e = fails('{"loss": [1, 2, 3], "config": {"lr": 0.1}}');
    expect(e.code).toBe('not-a-trace');
    expect(e.message).toMatch(/no "traceEvents" array/);
  });

  test('says a truncated trace is cut short, wherever the cut falls', () => {
    const text = traceText(tricky);
    for (const at of [1, 40, Math.floor(text.length / 2), text.length - 3]) {
      const e = fails(text.slice(0, at));
      expect(['truncated', 'not-json']).toContain(e.code);
    }
    expect(fails(text.slice(0, text.length - 3)).message).toMatch(/ends early.*cut short/);
  });

  test('says an empty file is empty', () => {
    expect(fails('  \n').code).toBe('empty');
  });

  test('reads a gzip trace by its magic bytes, and says a truncated gzip is cut short', async () => {
    const gz = gzipSync(traceText(tricky));
    const t = await parseTraceStream(bytesStream(gz, 100));
    expect(t.events.count).toBe(expectedRows(traceText(tricky)).length);
    const e = await parseTraceStream(bytesStream(gz.subarray(0, gz.length - 40), 100)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TraceError);
    expect((e as TraceError).code).toMatch(/gzip|truncated/);
    expect((e as Error).message).toMatch(/cut short/);
  });

  test('reports bytes read as it goes', async () => {
    const gz = gzipSync(traceText(tricky));
    const seen: number[] = [];
    await parseTraceStream(bytesStream(gz, 50), (n) => seen.push(n));
    expect(seen.at(-1)).toBe(gz.length);
    expect(seen.length).toBeGreaterThan(1);
  });
});
