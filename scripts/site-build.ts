/**
 * `npm start`'s site build, kept quiet: Astro's ~140 lines of log go to a buffer, and the terminal gets one line
 * when the build starts and one when it ends, so the lab server's URL is not buried. A failed build prints the
 * log's last lines, where Astro says what broke.
 */
import { spawnSync } from 'node:child_process';

/** How a quiet build went. */
export interface QuietBuild {
  ok: boolean;
  seconds: number;
}

/** Lines of a failed build's log shown (Astro's error and its stack fit). */
export const FAILED_LOG_LINES = 40;

/**
 * Runs `command args` in `cwd` with its output captured; `say` gets the start line, then the end line (and on
 * failure the log's last FAILED_LOG_LINES lines).
 */
export function quietBuild(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; say: (line: string) => void; nowMs?: () => number },
): QuietBuild {
  const now = opts.nowMs ?? Date.now;
  const started = now();
  opts.say('Building the site (about a minute the first time; the log is kept quiet unless it fails)…');
  const r = spawnSync(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    shell: process.platform === 'win32',
  });
  const seconds = Math.round((now() - started) / 1000);
  const ok = r.status === 0;
  if (ok) opts.say(`Built the site in ${seconds} s.`);
  else {
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`.trimEnd().split('\n');
    opts.say(log.slice(-FAILED_LOG_LINES).join('\n'));
    opts.say(`The site build failed after ${seconds} s (its last ${FAILED_LOG_LINES} lines are above).`);
  }
  return { ok, seconds };
}
