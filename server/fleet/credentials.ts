/**
 * Credentials for Prometheus kept in files (`--prometheus-token-file`, `--prometheus-basic-auth-file`): read
 * once, checked, and never echoed. Every message names the file and what is wrong with it, never its content.
 */
import { readSmallFile } from '../files.ts';
import { PrometheusError } from './prometheus-error.ts';

/** A credential file larger than this is not a credential. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;

/**
 * A credential kept in a file (a bearer token, or `user:password`): a regular file of at most
 * MAX_CREDENTIAL_BYTES holding one line, trimmed. Throws a PrometheusError (`local`) naming the file and
 * what is wrong, never its content: empty, more than one line, characters an HTTP header cannot carry.
 */
export function readCredentialFile(path: string, what: 'token' | 'basic-auth'): string {
  const flag = what === 'token' ? '--prometheus-token-file' : '--prometheus-basic-auth-file';
  const shape = what === 'token' ? 'the token' : 'user:password';
  let text: string;
  try {
    text = readSmallFile(path, flag, MAX_CREDENTIAL_BYTES).trim();
  } catch (e) {
    throw new PrometheusError('local', (e as Error).message);
  }
  if (!text) throw new PrometheusError('local', `${flag} ${path} is empty: put ${shape} in it, on one line.`);
  if (/[\r\n]/.test(text))
    throw new PrometheusError(
      'local',
      `${flag} ${path} holds more than one line: put ${shape} alone on one line (it travels in an HTTP header).`,
    );
  if (/[^\x20-\x7e]/.test(text))
    throw new PrometheusError(
      'local',
      `${flag} ${path} holds a control or non-ASCII character, which an HTTP header cannot carry: put ${shape} in it as plain ASCII.`,
    );
  if (what === 'basic-auth' && !text.includes(':'))
    throw new PrometheusError('local', `${flag} ${path} must hold user:password (no ":" found).`);
  return text;
}
