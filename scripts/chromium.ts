/**
 * Which Chromium the end-to-end tests and the benchmarks drive: one variable, CHROMIUM_PATH.
 * CHROME_PATH is accepted as an alias because it is the name Lighthouse's own CLI reads, and the
 * README and bench/report.md show it in the command that reproduces the Lighthouse figures.
 */
import { existsSync } from 'node:fs';

/** $CHROMIUM_PATH, else $CHROME_PATH, else Debian's chromium; undefined when none exists. */
export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const candidates = [env['CHROMIUM_PATH'], env['CHROME_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}
