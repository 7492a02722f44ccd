/**
 * Opening files an operator names (a token, a credential, a replay or a recording) so that a careless path
 * cannot hang or swamp the process: the file must be a regular file, and a file read whole must be small.
 * Opened with O_NONBLOCK, so a FIFO with no writer is refused at once instead of blocking startup (for a
 * regular file O_NONBLOCK changes nothing), then checked with fstat on the same descriptor (no race with a
 * swap between a stat and the open).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** A path that is not a usable file; the message names the path and what to do, never the file's content. */
export class FileError extends Error {
  override name = 'FileError';
}

const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** What a non-regular file is, in words ("a FIFO (named pipe)", "a directory", "a device"). */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `path` with `flags` (plus O_NONBLOCK, and O_NOFOLLOW when `noFollow`) and returns the descriptor
 * once fstat says it is a regular file.
 * @throws FileError for a FIFO, device, directory or socket, naming `what` (e.g. "--token-file").
 * @throws the open's own error (ENOENT, EACCES, ELOOP…) otherwise, for the caller to word.
 */
export function openRegularFile(
  path: string,
  flags: number,
  what: string,
  options: { noFollow?: boolean; mode?: number } = {},
): number {
  let fd: number;
  try {
    fd = openSync(path, flags | NONBLOCK | (options.noFollow ? NOFOLLOW : 0), options.mode ?? 0o666);
  } catch (e) {
    // Opening a FIFO for writing with no reader fails with ENXIO under O_NONBLOCK: it is a FIFO all the same.
    if ((e as NodeJS.ErrnoException).code === 'ENXIO')
      throw new FileError(`${what} ${path} is a FIFO (named pipe), not a regular file: give a plain file.`);
    throw e;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new FileError(`${what} ${path} is ${fileKind(st)}, not a regular file: give a plain file.`);
  }
  return fd;
}

/**
 * The text of a small regular file, read whole: at most `maxBytes` (a larger file is refused before it is
 * read, so `/dev/zero` or a 10 GB file costs nothing).
 * @throws FileError naming `what` and the path (missing, unreadable, not a regular file, too large).
 */
export function readSmallFile(
  path: string,
  what: string,
  maxBytes: number,
  options: { noFollow?: boolean } = {},
): string {
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY, what, options);
  } catch (e) {
    if (e instanceof FileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FileError(`${what} ${path} does not exist.`);
    if (code === 'ELOOP') throw new FileError(`${what} ${path} is a symlink: give the file itself.`);
    if (code === 'EACCES') throw new FileError(`${what} ${path} cannot be read: check its permissions.`);
    throw new FileError(`${what} ${path} cannot be read (${code ?? (e as Error).message}).`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes)
      throw new FileError(`${what} ${path} holds ${size} bytes, more than the ${maxBytes} a file of this kind may.`);
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n <= maxBytes; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > maxBytes)
      throw new FileError(`${what} ${path} holds more than the ${maxBytes} bytes a file of this kind may.`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
