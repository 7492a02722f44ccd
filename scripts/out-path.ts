/**
 * `--out FILE` checked before the audit asks Prometheus anything: a report that cannot be written is a flag
 * mistake, found in a millisecond rather than after every query has run.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileKind } from '../server/files.ts';
import { terminalText } from '../server/fleet/plain-text.ts';

/** Why `path` cannot take the report (its folder missing or read-only, a directory or FIFO there), or null. */
export function checkOutPath(path: string): string | null {
  const shown = terminalText(path, 300);
  if (path.trim() === '') return '--out needs a file name, e.g. --out waste.md';
  const folder = dirname(resolve(path));
  try {
    if (!statSync(folder).isDirectory()) return `--out ${shown}: ${terminalText(folder)} is not a folder.`;
  } catch {
    return `--out ${shown}: the folder ${terminalText(folder)} does not exist; create it first.`;
  }
  try {
    const st = statSync(path);
    if (!st.isFile()) return `--out ${shown} is ${fileKind(st)}: give a file name.`;
    accessSync(path, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      try {
        accessSync(folder, constants.W_OK);
      } catch {
        return `--out ${shown}: the folder ${terminalText(folder)} is not writable.`;
      }
      return null;
    }
    return `--out ${shown} cannot be written (${code ?? 'error'}): check its permissions.`;
  }
  return null;
}
