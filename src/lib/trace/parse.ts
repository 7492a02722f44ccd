/**
 * Reading a Kineto (PyTorch profiler) Chrome-trace file into an `EventTable` and its metadata, from text
 * chunks (`createTraceParser`) or from a byte stream, gzip or not (`parseTraceStream`). Works the same in
 * Node (the CLI, tests) and a Web Worker: it uses only `TextDecoder` and `DecompressionStream`.
 */
import { createDecoder } from './decode.ts';
import { TraceError } from './errors.ts';
import { TraceScanner } from './json-scan.ts';
import { EventStore, TooManyEvents, type EventTable } from './store.ts';

/** What the trace says about itself, beside its events. */
export interface TraceMeta {
  /** `distributedInfo.rank`, or null when the trace does not say. */
  rank: number | null;
  /** `distributedInfo.world_size`, or null. */
  worldSize: number | null;
  /** `distributedInfo.backend` (e.g. "nccl"), or null. */
  backend: string | null;
  /** GPU names from `deviceProperties`. */
  deviceNames: string[];
  /** `displayTimeUnit` ("ms" or "ns"): a display hint only; `ts` is microseconds either way. */
  displayTimeUnit: string | null;
  /** "ns" when timestamps carry fractions of a microsecond (PyTorch ≥ 2.4 writes nanosecond resolution). */
  resolution: 'us' | 'ns';
  /** Events in `traceEvents`, and how many of them were kept (complete events with a category). */
  seenEvents: number;
  keptEvents: number;
  /** `ac2g` flow events (arrows from a CPU launch to its GPU kernel). */
  flowEvents: number;
}

/** A parsed trace: its events and metadata. */
export interface ParsedTrace {
  events: EventTable;
  meta: TraceMeta;
}

/** Top-level keys kept beside the events. */
const META_KEYS = ['distributedInfo', 'deviceProperties', 'displayTimeUnit'] as const;

/** A parser fed text chunk by chunk. */
export interface TraceParser {
  push(text: string): void;
  end(): ParsedTrace;
  /** Events kept so far. */
  events(): number;
}

/** Limits on what one trace may take, and how its bytes are decoded. */
export interface ParseOptions {
  /** The most events kept (about 44 bytes each); beyond it the trace is refused as too large. */
  maxEvents?: number;
  /** Decode ASCII pieces with the single-byte decoder (decode.ts); default true. */
  asciiFast?: boolean;
}

/** A parser for one trace document fed as text chunks. */
export function createTraceParser(options: ParseOptions = {}): TraceParser {
  const store = new EventStore(options.maxEvents);
  const meta: Record<string, unknown> = {};
  const scanner = new TraceScanner(
    {
      events: (batch) => store.addBatch(batch),
      value: (key, value) => {
        meta[key] = value;
      },
    },
    META_KEYS,
  );
  return {
    push: (text) => {
      try {
        scanner.push(text);
      } catch (e) {
        throw e instanceof TooManyEvents || e instanceof RangeError ? tooLarge(store.count, null) : e;
      }
    },
    events: () => store.count,
    end: () => {
      scanner.end();
      return { events: store.table(), meta: readMeta(meta, store) };
    },
  };
}

/**
 * The words for a trace this device cannot hold: its table of events would not fit (`maxEvents`, or an
 * allocation failed), or one piece of text is longer than a string can be. `bytesRead` is how far it got.
 * @example tooLarge(5_700_000, 1.2e9).message // "This trace is larger than this device can read: it stopped at 5.7 million events, after 1.20 GB of the file. Record fewer steps (torch.profiler's schedule, e.g. active=2), or read it on a computer with more memory: npm run trace -- FILE."
 */
export function tooLarge(events: number, bytesRead: number | null): TraceError {
  const where = bytesRead === null ? '' : `, after ${(bytesRead / 1e9).toFixed(2)} GB of the file`;
  return new TraceError(
    'too-large',
    `This trace is larger than this device can read: it stopped at ${(events / 1e6).toFixed(1)} million events${where}. Record fewer steps (torch.profiler's schedule, e.g. active=2), or read it on a computer with more memory: npm run trace -- FILE.`,
  );
}

function readMeta(m: Record<string, unknown>, store: EventStore): TraceMeta {
  const dist = asRecord(m['distributedInfo']);
  const rank = dist?.['rank'];
  const world = dist?.['world_size'];
  const props = Array.isArray(m['deviceProperties']) ? (m['deviceProperties'] as unknown[]) : [];
  return {
    rank: typeof rank === 'number' && Number.isInteger(rank) ? rank : null,
    worldSize: typeof world === 'number' ? world : null,
    backend: typeof dist?.['backend'] === 'string' ? (dist['backend'] as string) : null,
    deviceNames: props.map((p) => asRecord(p)?.['name']).filter((n): n is string => typeof n === 'string'),
    displayTimeUnit: typeof m['displayTimeUnit'] === 'string' ? (m['displayTimeUnit'] as string) : null,
    resolution: store.fractionalTs ? 'ns' : 'us',
    seenEvents: store.seenCount,
    keptEvents: store.count,
    flowEvents: store.flowCount,
  };
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * Bytes decoded and handed to the parser at a time. Under V8's largest ordinary object (128 KB): the text of
 * a batch, and the batch string `JSON.parse` reads, live in the young generation, whose memory is reused; a
 * larger string is a fresh allocation of its own each time (on this project's VM, 60× slower to decode 16 MB
 * in 1 MB pieces than in 64 KB ones).
 */
export const BATCH_BYTES = 64 << 10;

/** One array holding `parts` end to end (`total` bytes). */
function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Progress while reading: bytes read from the source (compressed, when it is gzip). */
export type ProgressFn = (bytesRead: number) => void;

/** A parser fed bytes (UTF-8 JSON, already decompressed) chunk by chunk. */
export interface ByteTraceParser {
  push(bytes: Uint8Array): void;
  end(): ParsedTrace;
  /** Events kept so far. */
  events(): number;
}

/**
 * A parser for one trace document fed as UTF-8 bytes, decoded `BATCH_BYTES` at a time: small chunks are
 * gathered (one flat string per batch for JSON.parse; decoding each chunk and joining the strings copies the
 * text twice), a large one is decoded in views of that size, without a copy.
 */
export function createByteParser(options: ParseOptions = {}): ByteTraceParser {
  const parser = createTraceParser(options);
  const decode = createDecoder(options.asciiFast ?? true);
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = (last: boolean) => {
    const bytes = pending.length === 1 ? pending[0]! : concat(pending, pendingBytes);
    pending.length = 0;
    pendingBytes = 0;
    parser.push(decode(bytes, last));
  };
  return {
    push: (bytes) => {
      let at = 0;
      if (pendingBytes > 0) {
        at = Math.min(bytes.byteLength, BATCH_BYTES - pendingBytes);
        pending.push(bytes.subarray(0, at));
        pendingBytes += at;
        if (pendingBytes < BATCH_BYTES) return;
        flush(false);
      }
      for (; bytes.byteLength - at >= BATCH_BYTES; at += BATCH_BYTES)
        parser.push(decode(bytes.subarray(at, at + BATCH_BYTES), false));
      if (at < bytes.byteLength) {
        pending.push(bytes.subarray(at));
        pendingBytes += bytes.byteLength - at;
      }
    },
    events: () => parser.events(),
    end: () => {
      flush(true);
      return parser.end();
    },
  };
}

/**
 * Reads a trace from a byte stream: gzip (by its magic bytes, not its name) or plain JSON, decoded and
 * parsed chunk by chunk, so memory holds one chunk of text and the compact table, never the file. Gzip goes
 * through `DecompressionStream` (the browser's; in Node, `scripts/trace-file.ts` reads files through zlib).
 */
export async function parseTraceStream(
  source: ReadableStream<Uint8Array>,
  onProgress: ProgressFn = () => {},
  options: ParseOptions = {},
): Promise<ParsedTrace> {
  const input = source.getReader();
  const head = await input.read().catch((e: unknown) => {
    throw new TraceError('read', `The file could not be read: ${(e as Error).message}.`);
  });
  const first = head.value ?? new Uint8Array(0);
  const gzip = isGzip(first);
  let read = 0;
  // The first chunk, already read to sniff gzip, then the rest, counting bytes for progress.
  const counted = new ReadableStream<Uint8Array>({
    start(ctl) {
      if (head.done) ctl.close();
      else {
        read += first.byteLength;
        onProgress(read);
        ctl.enqueue(first);
      }
    },
    async pull(ctl) {
      const next = await input.read();
      if (next.done) ctl.close();
      else {
        read += next.value.byteLength;
        onProgress(read);
        ctl.enqueue(next.value);
      }
    },
    cancel: (why) => input.cancel(why),
  });
  const bytes = gzip
    ? counted
        .pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
        .pipeThrough(readAhead())
    : counted.pipeThrough(readAhead());
  const parser = createByteParser(options);
  const reader = bytes.getReader();
  try {
    while (true) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        throw gzip ? gzipError(e) : new TraceError('read', `The file could not be read: ${(e as Error).message}.`);
      }
      if (next.done) break;
      parser.push(next.value);
    }
    return parser.end();
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw asTooLarge(e, parser.events(), read);
  }
}

/**
 * The error to report for `e`, thrown while reading: a trace that does not fit (a `too-large` error, or a
 * RangeError: a piece of text longer than a string may be, V8: about 512 M characters, or memory ran out)
 * becomes `tooLarge` with how far it got; any other error is returned as it is.
 */
export function asTooLarge(e: unknown, events: number, bytesRead: number): unknown {
  if ((e instanceof TraceError && e.code === 'too-large') || e instanceof RangeError)
    return tooLarge(events, bytesRead);
  return e;
}

/** Whether bytes start with gzip's magic number (1f 8b). */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Bytes the file reader or the decompressor may run ahead of the parser. */
const READ_AHEAD_BYTES = 8 << 20;

/**
 * A pass-through that lets the source fill up to `READ_AHEAD_BYTES` while the parser works: where the source
 * runs on another thread or process (Node's zlib, the browser reading a picked file), it and the parser
 * overlap instead of taking turns.
 */
function readAhead(): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>(
    {},
    { highWaterMark: 1 },
    { highWaterMark: READ_AHEAD_BYTES, size: (c) => c.byteLength },
  );
}

/** The words for a gzip stream that ends early or is damaged. */
export function gzipError(e: unknown): TraceError {
  return new TraceError(
    'gzip',
    `The gzip file is cut short or damaged (${(e as Error).message}). Copy it again, or open the uncompressed .json.`,
  );
}
