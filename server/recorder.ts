/**
 * Writes every tick to an NDJSON file (`--record FILE`; format in server/recording.ts), replayed
 * with `--source replay:FILE`.
 *
 * Opening (`openRecorder`, which throws so the CLI can exit non-zero): the file is created 0600, or
 * made 0600, and never opened through a symlink (O_NOFOLLOW); a torn last line (a full disk, a
 * kill mid-write) is cut off so it cannot swallow the next line; a header line starts the run.
 * Writing is synchronous (one small line per tick). Past `maxBytes` the file is renamed FILE.1
 * (replacing an older one) and a new FILE begins with a header. A failed write stops the recording
 * and is kept in `status().error`, which /api/health reports.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import type { Tick } from './sampler.ts';
import type { RecordingHeader } from './recording.ts';

/** What /api/health says about the recording. */
export interface RecordingStatus {
  file: string;
  /** Bytes in the current file. */
  bytes: number;
  /** Times the file was rotated to FILE.1 in this run. */
  rotations: number;
  /** Why recording stopped, or null while it works. */
  error: string | null;
}

/** An open recording. */
export interface Recorder {
  write(tick: Tick): void;
  status(): RecordingStatus;
  close(): Promise<void>;
}

/** Options for `openRecorder`. */
export interface RecorderOptions {
  /** Rotate past this many bytes; null or 0 for no limit. */
  maxBytes?: number | null;
  /** Written into each header. */
  source: string;
  intervalMs: number;
  now?: () => number;
  log?: (message: string) => void;
}

// O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) instead of hanging startup; no effect on a plain file.
const FLAGS =
  constants.O_WRONLY |
  constants.O_APPEND |
  constants.O_CREAT |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** Why a recording cannot start, with what to do. */
export class RecordError extends Error {
  constructor(file: string, e: unknown) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ELOOP'
        ? 'it is a symlink, which the lab server does not follow: name the real file'
        : code === 'ENOENT'
          ? 'its folder does not exist: create it first'
          : code === 'ENXIO' || code === 'ENOTREG' || code === 'EISDIR'
            ? 'it is not a regular file (a FIFO, a device or a folder): name a plain file'
            : code === 'EACCES' || code === 'EPERM'
              ? 'permission denied: pick a file you can write'
              : code === 'EROFS'
                ? 'the file system is read-only: pick another place'
                : code === 'ENOSPC'
                  ? 'the disk is full: free space or pick another disk'
                  : (e as Error).message;
    super(`Cannot record to ${file}: ${why}.`);
    this.name = 'RecordError';
  }
}

/** Cuts a torn last line (no final "\n") off the file open at `fd`; returns the bytes removed. */
function repairTornLine(fd: number, path: string, size: number): number {
  if (size === 0) return 0;
  const read = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const buf = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = readSync(read, buf, 0, end - start, start);
      const nl = buf.subarray(0, n).lastIndexOf(10);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0); // no complete line at all
    return size;
  } finally {
    closeSync(read);
  }
}

/**
 * Opens `file` for a recording run: 0600, no symlinks, torn line repaired, header written.
 * @throws RecordError saying why and what to do.
 */
export function openRecorder(file: string, options: RecorderOptions): Recorder {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((m: string) => console.error(m));
  const maxBytes = options.maxBytes && options.maxBytes > 0 ? options.maxBytes : null;
  let fd: number | null = null;
  let bytes = 0;
  let rotations = 0;
  let error: string | null = null;

  const header = (rotated: boolean): string => {
    const h: RecordingHeader = {
      recording: { version: 1, startedAtMs: now(), source: options.source, intervalMs: options.intervalMs, rotated },
    };
    return `${JSON.stringify(h)}\n`;
  };
  const open = (rotated: boolean): void => {
    const opened = openSync(file, FLAGS, 0o600);
    try {
      const st = fstatSync(opened);
      if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
      if ((st.mode & 0o077) !== 0) fchmodSync(opened, 0o600); // it holds PIDs and host memory
      const cut = repairTornLine(opened, file, st.size);
      if (cut > 0) log(`[record] ${file}: cut a torn last line (${cut} bytes) before appending.`);
      bytes = st.size - cut;
      const h = header(rotated);
      writeSync(opened, h);
      bytes += Buffer.byteLength(h);
      fd = opened;
    } catch (e) {
      closeSync(opened);
      throw e;
    }
  };
  try {
    open(false);
  } catch (e) {
    throw new RecordError(file, e);
  }

  const fail = (e: unknown): void => {
    error = new RecordError(file, e).message.replace(/^Cannot record to/, 'Recording stopped: cannot write');
    log(`[record] ${error}`);
    if (fd !== null) closeSync(fd);
    fd = null;
  };
  return {
    write(tick) {
      if (fd === null) return;
      const line = `${tick.json}\n`;
      const size = Buffer.byteLength(line);
      try {
        if (maxBytes !== null && bytes + size > maxBytes && bytes > 0) {
          closeSync(fd);
          fd = null;
          renameSync(file, `${file}.1`);
          rotations++;
          open(true);
        }
        if (fd === null) return; // the rotation failed and said so
        writeSync(fd, line);
        bytes += size;
      } catch (e) {
        fail(e);
      }
    },
    status: () => ({ file, bytes, rotations, error }),
    async close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
