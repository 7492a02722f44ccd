/**
 * The recording format (`--record FILE`, replayed with `--source replay:FILE`): NDJSON, one
 * StreamMessage per line, and a header line `{"recording":{…}}` at the start of every recording run,
 * so a replay can tell two runs appended to one file apart and skip the time between them.
 * `LineReader` reads such a file line by line with a fixed buffer: replay memory does not grow
 * with the file.
 */
import { closeSync, constants, readSync } from 'node:fs';
import { openRegularFile } from './files.ts';

/** The header line written when a recording run starts. */
export interface RecordingHeader {
  recording: {
    /** Format version. */
    version: 1;
    startedAtMs: number;
    /** The source recorded, e.g. "nvml". */
    source: string;
    /** The sampling interval of this run, ms: a replay joins runs one interval apart. */
    intervalMs: number;
    /** True when this file was started by rotation (`--record-max`) rather than a new run. */
    rotated: boolean;
  };
}

/** Whether a parsed line is a run header. */
export function isHeader(value: unknown): value is RecordingHeader {
  return (
    typeof value === 'object' &&
    value !== null &&
    'recording' in value &&
    typeof (value as RecordingHeader).recording === 'object' &&
    (value as RecordingHeader).recording !== null
  );
}

/** The longest line kept, bytes; a longer one is skipped as bad (8 GPUs make ~6 KB a line). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a file's lines in order through one 64 KiB buffer (plus the pieces of one line that spans
 * reads). `next()` returns the next line without its "\n", `''` for a line that was too long, or
 * null at the end; `rewind()` starts over. Synchronous: a source's `read` must be.
 */
export class LineReader {
  readonly #fd: number;
  readonly #buf = Buffer.alloc(CHUNK_BYTES);
  #filePos = 0;
  #start = 0;
  #end = 0;
  #pieces: Buffer[] = [];
  #pieceBytes = 0;
  #tooLong = false;

  constructor(path: string) {
    this.#fd = openRegularFile(path, constants.O_RDONLY, '--source replay:'); // a FIFO or device is refused at once
  }

  next(): string | null {
    for (;;) {
      const nl = this.#buf.subarray(0, this.#end).indexOf(10, this.#start);
      if (nl >= 0) {
        const piece = this.#buf.subarray(this.#start, nl);
        this.#start = nl + 1;
        return this.#take(piece);
      }
      if (this.#start < this.#end) this.#keep(this.#buf.subarray(this.#start, this.#end));
      const n = readSync(this.#fd, this.#buf, 0, CHUNK_BYTES, this.#filePos);
      this.#filePos += n;
      this.#start = 0;
      this.#end = n;
      if (n === 0) return this.#pieceBytes > 0 || this.#tooLong ? this.#take(Buffer.alloc(0)) : null;
    }
  }

  rewind(): void {
    this.#filePos = 0;
    this.#start = 0;
    this.#end = 0;
    this.#pieces = [];
    this.#pieceBytes = 0;
    this.#tooLong = false;
  }

  close(): void {
    closeSync(this.#fd);
  }

  #keep(piece: Buffer): void {
    if (this.#tooLong) return;
    this.#pieceBytes += piece.length;
    if (this.#pieceBytes > MAX_LINE_BYTES) {
      this.#tooLong = true;
      this.#pieces = [];
      this.#pieceBytes = 0;
    } else this.#pieces.push(Buffer.from(piece));
  }

  #take(last: Buffer): string {
    const tooLong = this.#tooLong || this.#pieceBytes + last.length > MAX_LINE_BYTES;
    const line = tooLong
      ? ''
      : this.#pieces.length === 0
        ? last.toString('utf8')
        : Buffer.concat([...this.#pieces, last]).toString('utf8');
    this.#pieces = [];
    this.#pieceBytes = 0;
    this.#tooLong = false;
    return line;
  }
}
