/**
 * Reading a trace file in Node (the CLI, the benches): the same parser as the page's worker, fed by Node's
 * own streams instead of web streams. Gzip (sniffed by its magic bytes, not the file's name) goes through
 * node:zlib on its thread pool with 1 MB output chunks and up to 8 MB of read-ahead, so inflating overlaps
 * parsing and each chunk reaches the parser in one piece; `DecompressionStream` hands out 16–64 KB chunks,
 * each passed through web streams on the main thread. A file under 1 MB is read in one piece, and inflated in one
 * when its text is under 1 MB too: on a small trace, the hops between threads would cost more than the parse.
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gunzipSync, type Gunzip, type ZlibOptions } from 'node:zlib';
import {
  asTooLarge,
  createByteParser,
  gzipError,
  isGzip,
  type ParsedTrace,
  type ParseOptions,
} from '../src/lib/trace/parse.ts';
import { TraceError } from '../src/lib/trace/errors.ts';

/** Bytes read from the file, and inflated, at a time. */
const CHUNK_BYTES = 1 << 20;
/** Inflated bytes zlib may hold ready ahead of the parser. */
const READ_AHEAD_BYTES = 8 << 20;
/** Files up to this size are read whole, and inflated whole (one buffer, no copy) when their text is no larger. */
const SMALL_FILE_BYTES = 1 << 20;

/**
 * A gunzip stream with 1 MB output chunks and `READ_AHEAD_BYTES` of read-ahead (Node passes the stream options
 * on to its Transform; its typings list only zlib's own).
 */
function gunzip(): Gunzip {
  return createGunzip({ chunkSize: CHUNK_BYTES, readableHighWaterMark: READ_AHEAD_BYTES } as ZlibOptions);
}

/** The first two bytes of a file (fewer when it is shorter). */
async function head(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = new Uint8Array(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * Parses the trace in the file at `path`, gzip or plain JSON. Throws `TraceError`: `read` when the file
 * cannot be read, `gzip` when its gzip is cut short or damaged, and the parser's own codes.
 * @example const trace = await parseTraceFile('rank0.json.gz'); trace.meta.keptEvents // 812345
 */
export async function parseTraceFile(path: string, options: ParseOptions = {}): Promise<ParsedTrace> {
  // Node's UTF-8 decoder is as fast on ASCII as the single-byte one (src/lib/trace/decode.ts): no ASCII check.
  options = { asciiFast: false, ...options };
  let gzip: boolean;
  let whole: Uint8Array | null = null;
  try {
    if ((await stat(path)).size <= SMALL_FILE_BYTES) whole = await readFile(path);
    gzip = isGzip(whole ?? (await head(path)));
  } catch (e) {
    throw new TraceError('read', `The file could not be read: ${(e as Error).message}.`);
  }
  if (whole) {
    const text = gzip ? inflateSmall(whole) : whole;
    if (text) return parseBytes(text, options, whole.length);
  }
  const file = whole ? Readable.from([whole]) : createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const bytesRead = () => (whole ? whole.length : (file as ReturnType<typeof createReadStream>).bytesRead);
  const parser = createByteParser(options);
  const feed = async (bytes: AsyncIterable<Uint8Array>) => {
    for await (const chunk of bytes) parser.push(chunk);
  };
  try {
    if (gzip) await pipeline(file, gunzip(), feed);
    else await pipeline(file, feed);
    return parser.end();
  } catch (e) {
    if (e instanceof TraceError || e instanceof RangeError) throw asTooLarge(e, parser.events(), bytesRead());
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (gzip && code.startsWith('Z_')) throw gzipError(e);
    throw new TraceError('read', `The file could not be read: ${(e as Error).message}.`);
  }
}

/**
 * The inflated bytes of a small gzip file, or null when they would pass `CHUNK_BYTES` (then streamed). The
 * gzip trailer's last four bytes give the text's size (modulo 4 GB, of the last member only: a hint, checked).
 */
function inflateSmall(gz: Uint8Array): Uint8Array | null {
  const size = gz.length >= 18 ? new DataView(gz.buffer, gz.byteOffset, gz.length).getUint32(gz.length - 4, true) : 0;
  if (size > CHUNK_BYTES) return null;
  try {
    // One output chunk of the size the trailer gives (at least 16 KB; a wrong hint only costs more chunks),
    // not a 1 MB buffer for a file of a few hundred KB.
    return gunzipSync(gz, { chunkSize: Math.max(16 << 10, size + 1), maxOutputLength: CHUNK_BYTES });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return null;
    throw gzipError(e);
  }
}

/** Parses bytes held in memory (from a file of `fileBytes`), in `CHUNK_BYTES` views (no copy) as a stream would. */
function parseBytes(bytes: Uint8Array, options: ParseOptions, fileBytes: number): ParsedTrace {
  const parser = createByteParser(options);
  try {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) parser.push(bytes.subarray(at, at + CHUNK_BYTES));
    return parser.end();
  } catch (e) {
    throw asTooLarge(e, parser.events(), fileBytes);
  }
}
