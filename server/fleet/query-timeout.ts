/** How long one Prometheus query may take: the default, the limit and the flag's parser (audit CLI and lab server). */
import { terminalText } from './plain-text.ts';

/**
 * Seconds one query may take by default. One query reads at most HOSTS_PER_QUERY hosts (collect.ts), but the
 * window's segment averages read every sample of those hosts' series in the window: a 7-day window of 400 GPUs at a
 * 15 s scrape is some 300 million samples, tens of seconds on a busy Prometheus. Two minutes leaves room for that.
 */
export const DEFAULT_QUERY_TIMEOUT_S = 120;
/**
 * The longest timeout that means what it says: Node's fetch (undici) gives up by itself after 300 s without
 * headers or body data (headersTimeout, bodyTimeout), which would read as "unreachable".
 */
export const MAX_QUERY_TIMEOUT_S = 300;

/**
 * `--query-timeout` (or the lab server's `--prometheus-query-timeout`) as seconds; throws an Error that says what
 * it takes.
 * @example parseQueryTimeout('90', '--query-timeout') // 90
 */
export function parseQueryTimeout(text: string, flag: string): number {
  const s = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(s >= 1 && s <= MAX_QUERY_TIMEOUT_S))
    throw new Error(
      `${flag} must be a number of seconds from 1 to ${MAX_QUERY_TIMEOUT_S} such as ${DEFAULT_QUERY_TIMEOUT_S} (got "${terminalText(text, 40)}")`,
    );
  return s;
}
