/**
 * Reading trace files in Node (the CLI and the benches: scripts/trace-file.ts, zlib instead of
 * DecompressionStream), the byte parser both readers share, the fast path's cut on minified traces, and the
 * correlation index the analyses join by.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseTraceFile } from '../../scripts/trace-file.ts';
import { corrSlots } from '../../src/lib/trace/corr-index.ts';
import { createDecoder, isAscii } from '../../src/lib/trace/decode.ts';
import { lastEventCut } from '../../src/lib/trace/event-text.ts';
import { createByteParser } from '../../src/lib/trace/parse.ts';
import {
  analyzeTraces,
  createTraceParser,
  parseTraceStream,
  TraceError,
  type ParsedTrace,
} from '../../src/lib/trace/index.ts';
import { cpu, launch, step, traceText, type Ev } from './trace-gen.ts';

const dir = mkdtempSync(join(tmpdir(), 'trace-file-'));
const write = (name: string, bytes: Uint8Array | string) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};

/** A seeded trace of `ops` CPU ops (names with random hex, so gzip cannot shrink it much) and kernels. */
function bigTrace(ops: number, seed = 1): Ev[] {
  let x = seed;
  const hex = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x.toString(16).padStart(8, '0');
  };
  const evs: Ev[] = [step(1, 0, 10 * ops), step(2, 10 * ops, 10)];
  for (let i = 0; i < ops; i++) {
    evs.push(cpu(`op ${hex()}${hex()}${hex()}${hex()} ノード`, 10 * i, 3));
    if (i % 4 === 0) evs.push(...launch(`kernel_${hex()}`, 10 * i + 1, 10 * i + 4, 2));
  }
  return evs;
}

/** What a reader made of a trace, comparable with `toEqual`. */
const table = (t: ParsedTrace) => ({
  meta: t.meta,
  strings: t.events.strings,
  columns: [
    t.events.tsUs,
    t.events.durUs,
    t.events.name,
    t.events.cat,
    t.events.tid,
    t.events.stream,
    t.events.corr,
  ].map((c) => Array.from(c)),
});

const viaWeb = (bytes: Uint8Array) =>
  parseTraceStream(
    new ReadableStream({
      start(ctl) {
        for (let i = 0; i < bytes.length; i += 16_384) ctl.enqueue(bytes.slice(i, i + 16_384));
        ctl.close();
      },
    }),
  );

describe('reading a trace file in Node', () => {
  const text = traceText(bigTrace(40_000), { distributedInfo: { rank: 2, world_size: 4, backend: 'nccl' } });
  const big = gzipSync(text);
  const small = gzipSync(traceText(bigTrace(2_000)));

  test('gzip over 1 MB (streamed through zlib), gzip under it (read whole) and plain JSON read as the page reads them', async () => {
    expect(big.length).toBeGreaterThan(1 << 20);
    expect(small.length).toBeLessThan(1 << 20);
    const want = table(await viaWeb(big));
    expect(want.meta.rank).toBe(2);
    expect(table(await parseTraceFile(write('big.json.gz', big)))).toEqual(want);
    expect(table(await parseTraceFile(write('big.json', text)))).toEqual(want);
    // The name does not decide: gzip is told by its magic bytes.
    expect(table(await parseTraceFile(write('small-named-plain.json', small)))).toEqual(table(await viaWeb(small)));
    // A small file whose text is large (read whole, inflated as a stream).
    const packed = gzipSync(traceText(Array.from({ length: 20_000 }, (_, i) => cpu('aten::mm', 10 * i, 5))));
    expect(packed.length).toBeLessThan(1 << 20);
    expect(table(await parseTraceFile(write('packed.json.gz', packed)))).toEqual(table(await viaWeb(packed)));
    expect((await parseTraceFile(join(dir, 'packed.json.gz'))).meta.keptEvents).toBe(20_000);
  }, 120_000);

  test('a gzip file cut short says so, whether streamed or read whole; a missing file or one that is not JSON says what it is', async () => {
    for (const gz of [big, small]) {
      const e = await parseTraceFile(write('cut.json.gz', gz.subarray(0, gz.length - 40))).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(TraceError);
      expect((e as TraceError).code).toBe('gzip');
      expect((e as Error).message).toMatch(/cut short or damaged/);
    }
    const missing = await parseTraceFile(join(dir, 'nope.json.gz')).catch((x: unknown) => x);
    expect((missing as TraceError).code).toBe('read');
    const notJson = await parseTraceFile(write('notes.txt', 'loss went down')).catch((x: unknown) => x);
    expect((notJson as TraceError).code).toBe('not-json');
  }, 60_000);
});

describe('the byte parser', () => {
  test('bytes split anywhere, multi-byte characters across its 64 KB batches, read as the whole text does (fuzzed)', () => {
    const text = traceText(bigTrace(1_500, 7));
    const bytes = new TextEncoder().encode(text);
    expect(bytes.length).toBeGreaterThan(3 * 65_536);
    const whole = createTraceParser();
    whole.push(text);
    const want = table(whole.end());
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const p = createByteParser();
        for (let at = 0, k = 0; at < bytes.length; k++) {
          const n = sizes[k % sizes.length]!;
          p.push(bytes.subarray(at, at + n));
          at += n;
        }
        expect(table(p.end())).toEqual(want);
      }),
      { numRuns: 40 },
    );
  });
});

describe('the decoder', () => {
  test('gives exactly what one UTF-8 decoder gives: ASCII pieces, characters cut between pieces, bad bytes and byte-order marks (fuzzed)', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const piece = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => [...new TextEncoder().encode(s)]),
      fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => [...new TextEncoder().encode(s)]),
      fc.constant(bom),
      fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(12), { minLength: 1 }), (pieces, cuts) => {
        const bytes = Uint8Array.from(pieces.flat());
        // The same pieces through the ASCII path and through one streaming UTF-8 decoder alone.
        const decode = createDecoder(true);
        const utf8 = new TextDecoder();
        let got = '';
        let want = '';
        for (let at = 0, k = 0; at < bytes.length; k++) {
          const n = cuts[k % cuts.length]! || 1;
          got += decode(bytes.subarray(at, at + n), false);
          want += utf8.decode(bytes.subarray(at, at + n), { stream: true });
          at += n;
        }
        expect(got + decode(new Uint8Array(0), true)).toBe(want + utf8.decode());
      }),
      { numRuns: 2000 },
    );
  });

  test('finds a byte over 0x7f at any offset and alignment', () => {
    const buf = new Uint8Array(64).fill(0x41);
    for (let from = 0; from < 8; from++)
      for (let at = from; at < 40; at++) {
        buf[at] = 0xc3;
        expect(isAscii(buf.subarray(from, 40))).toBe(false);
        buf[at] = 0x41;
        expect(isAscii(buf.subarray(from, 40))).toBe(true);
      }
  });
});

describe("the fast path's cut between events", () => {
  test('is found in minified traces as in pretty-printed ones, and only between a } and a {', () => {
    expect(lastEventCut('{"a":{"b":1}},{"c":2},{"d"')).toBe(21);
    expect(lastEventCut('{"a":{"b":1}}, {"c":2}')).toBe(13);
    expect(lastEventCut('  {"a": 1},\n  {"b"')).toBe(10);
    expect(lastEventCut('{"a": [1,\n{"b": 2}]')).toBe(-1);
    expect(lastEventCut('{"a": 1}')).toBe(-1);
  });
});

describe('the correlation index', () => {
  test('gives equal ids one slot and different ids different slots, ids dense, sparse, negative and repeated (fuzzed)', () => {
    const id = fc.oneof(
      fc.integer({ min: -3, max: 50 }),
      fc.integer({ min: 800_000, max: 800_100 }),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 300 }), (list) => {
        const { slot, size } = corrSlots(Int32Array.from(list));
        const seen = new Map<number, number>();
        const used = new Set<number>();
        list.forEach((x, i) => {
          const s = slot[i]!;
          expect(s >= 0 && s < size).toBe(true);
          if (seen.has(x)) expect(s).toBe(seen.get(x));
          else {
            expect(used.has(s)).toBe(false);
            seen.set(x, s);
            used.add(s);
          }
        });
      }),
    );
  });

  test('joins a sampled trace whose correlation ids are spread thinly as a dense one', () => {
    // The same launches and kernels, correlations as launch() numbers them and each × 10^5: the same figures.
    const dense: Ev[] = [];
    for (let k = 0; k < 50; k++) dense.push(step(k, 100 * k, 100), ...launch('gemm', 100 * k + 2, 100 * k + 40, 30));
    const spread = (e: Ev): Ev => {
      const args = e['args'] as Record<string, number> | undefined;
      if (args?.['correlation'] === undefined) return e;
      return { ...e, args: { ...args, correlation: args['correlation'] * 1e5 } };
    };
    const read = (evs: Ev[]) => {
      const p = createTraceParser();
      p.push(traceText(evs));
      return analyzeTraces([{ label: 'r', trace: p.end() }]).ranks[0]!;
    };
    const a = read(dense);
    const b = read(dense.map(spread));
    expect(b.launch).toEqual(a.launch);
    expect(b.idle).toEqual(a.idle);
    expect(a.launch?.launches).toBe(49);
  });
});
