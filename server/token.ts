/**
 * Where the API token comes from, first that applies: `--token` (kept for old scripts; it shows in
 * `ps`), `--token-file FILE`, `$SATURATE_TOKEN`, else the token kept in the user's config folder
 * (`$XDG_CONFIG_HOME/saturate/token`, or `~/.config/saturate/token`), made on first start and
 * replaced by `--new-token`. Kept, the token is stable across restarts, so a bookmarked lab URL
 * keeps working. The kept file is 0600 in a 0700 folder and is never read or written through a symlink.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileError, openRegularFile } from './files.ts';
import { newToken } from './security.ts';

/** What a token may be: 16–256 URL-safe characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,256}$/;

/** Where the token is kept: $XDG_CONFIG_HOME/saturate/token, else ~/.config/saturate/token. */
export function keptTokenPath(env: Readonly<Record<string, string | undefined>>, home = homedir()): string {
  const base = env['XDG_CONFIG_HOME'] && env['XDG_CONFIG_HOME'].startsWith('/') ? env['XDG_CONFIG_HOME'] : null;
  return join(base ?? join(home, '.config'), 'saturate', 'token');
}

/** The token chosen and where it came from. */
export interface TokenChoice {
  token: string;
  from: 'flag' | 'file' | 'env' | 'kept';
  /** The kept or --token-file path, else null. */
  path: string | null;
  /** A new kept token was written (first start, unreadable file, or --new-token). */
  created: boolean;
}

/** Why a token could not be chosen; the message says what to do. */
export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** A token file larger than this holds no token (a token is at most 256 characters). */
const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * Reads a token file without following a symlink; null when it does not exist. A FIFO, device or directory
 * is refused at once, and so is a file over MAX_TOKEN_FILE_BYTES, before anything is read.
 */
function readTokenFile(path: string, repairMode: boolean): string | null {
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY, repairMode ? 'The kept token' : '--token-file', { noFollow: true });
  } catch (e) {
    if (e instanceof FileError) throw new TokenError(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP')
      throw new TokenError(`${path} is a symlink: the lab server does not follow it. Remove it, then start again.`);
    throw new TokenError(`Cannot read the token in ${path}: ${(e as Error).message}.`);
  }
  try {
    const st = fstatSync(fd);
    if (st.size > MAX_TOKEN_FILE_BYTES)
      throw new TokenError(`${path} holds ${st.size} bytes: a token file holds one token of 16–256 characters.`);
    if (repairMode && (st.mode & 0o077) !== 0) fchmodSync(fd, 0o600); // others could read it: not any more
    const buf = Buffer.alloc(MAX_TOKEN_FILE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').trim();
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes sure the kept token's folder is this user's own: created 0700 when missing, made 0700 when group or
 * others could write or read it, refused when it is a symlink (it could point anywhere) or is someone else's.
 */
function ensurePrivateFolder(folder: string): void {
  let st;
  try {
    st = lstatSync(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    st = lstatSync(folder);
  }
  if (st.isSymbolicLink())
    throw new TokenError(
      `${folder} is a symlink: the lab server keeps its token only in a real folder. Replace it with a folder (mkdir -m 700 ${folder}), or pass --token-file.`,
    );
  if (!st.isDirectory()) throw new TokenError(`${folder} is not a folder: move it away, or pass --token-file.`);
  if ((st.mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw new TokenError(
      `${folder} belongs to another user and others can open it: the token cannot be kept private there. Pass --token-file or set SATURATE_TOKEN.`,
    );
  chmodSync(folder, 0o700);
}

/** Writes `token` to `path` as a new 0600 file (temporary name, then rename), its folder 0700. */
function writeKept(path: string, token: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * Chooses the token (see the file comment). `--new-token` with an explicit token is refused: only
 * the kept one rotates.
 * @throws TokenError with what to do (a bad token file, a symlink, an unwritable config folder).
 */
export function chooseToken(options: {
  flag: string | null;
  file: string | null;
  env: Readonly<Record<string, string | undefined>>;
  newToken: boolean;
  home?: string;
}): TokenChoice {
  const explicit = options.flag !== null || options.file !== null || !!options.env['SATURATE_TOKEN'];
  if (options.newToken && explicit)
    throw new TokenError(
      '--new-token replaces the kept token, but a token was given (--token, --token-file or SATURATE_TOKEN): drop one.',
    );
  const check = (token: string, where: string): string => {
    if (!TOKEN_PATTERN.test(token))
      throw new TokenError(`The token in ${where} must be 16–256 letters, digits, ".", "_", "~" or "-".`);
    return token;
  };
  if (options.flag !== null) return { token: check(options.flag, '--token'), from: 'flag', path: null, created: false };
  if (options.file !== null) {
    const text = readTokenFile(options.file, false);
    if (text === null) throw new TokenError(`--token-file ${options.file} does not exist.`);
    return { token: check(text, options.file), from: 'file', path: options.file, created: false };
  }
  const fromEnv = options.env['SATURATE_TOKEN'];
  if (fromEnv) return { token: check(fromEnv, 'SATURATE_TOKEN'), from: 'env', path: null, created: false };
  const path = keptTokenPath(options.env, options.home);
  try {
    ensurePrivateFolder(dirname(path));
  } catch (e) {
    if (e instanceof TokenError) throw e;
    throw new TokenError(
      `Cannot keep the token in ${dirname(path)}: ${(e as Error).message}. Set SATURATE_TOKEN or pass --token-file instead.`,
    );
  }
  const kept = options.newToken ? null : readTokenFile(path, true);
  if (kept !== null && TOKEN_PATTERN.test(kept)) return { token: kept, from: 'kept', path, created: false };
  const token = newToken();
  try {
    writeKept(path, token);
  } catch (e) {
    throw new TokenError(
      `Cannot keep the token in ${path}: ${(e as Error).message}. Set SATURATE_TOKEN or pass --token-file instead.`,
    );
  }
  return { token, from: 'kept', path, created: true };
}
