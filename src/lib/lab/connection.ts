/**
 * Pure helpers of the lab page's connection to the lab server: how long to wait before trying again
 * (a 503 with Retry-After, or a dropped stream), which run of the server an SSE event id belongs to,
 * the one-line summary of why the data is simulated, and the host phrase the lab texts use.
 */

/** The longest wait between two tries, ms. */
export const MAX_RETRY_MS = 30_000;

/**
 * Milliseconds in a `Retry-After` header (seconds or an HTTP date, RFC 9110 §10.2.3), or null when absent or unreadable.
 * @example retryAfterMs('5', 0) // 5000
 */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * The wait before try number `attempt` (0 for the first retry): doubling from 1 s up to 30 s, and never
 * shorter than the server's Retry-After.
 * @example retryDelayMs(0, '5', 0) // 5000
 * @example retryDelayMs(3, null, 0) // 8000
 */
export function retryDelayMs(attempt: number, retryAfter: string | null, nowMs: number): number {
  const backoff = Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.max(0, attempt));
  return Math.max(backoff, retryAfterMs(retryAfter, nowMs) ?? 0);
}

/**
 * The server run an SSE event id (`<bootId>-<seq>`, server/stream.ts) comes from, or null for another shape.
 * @example bootOf('k3x9-42') // 'k3x9'
 */
export function bootOf(eventId: string): string | null {
  const m = /^(.+)-\d+$/.exec(eventId);
  return m ? m[1]! : null;
}

/**
 * Why the lab server simulates, in one line; the server's full reason goes behind a disclosure.
 * @example simulatedSummary('NVML library not found (NVML 12) in dlopen. No NVIDIA driver library…', 'sim:idle') // 'No NVIDIA driver found: showing a simulated GPU'
 */
export function simulatedSummary(reason: string | null, source: string): string {
  const r = reason ?? '';
  if (source.startsWith('replay:')) return 'Replaying a recording';
  if (/NVML library not found|NVIDIA driver not loaded|No NVIDIA driver|libnvidia-ml/i.test(r))
    return 'No NVIDIA driver found: showing a simulated GPU';
  if (/no (NVIDIA )?GPU|NVML_ERROR_NOT_FOUND|0 devices/i.test(r)) return 'No NVIDIA GPU found: showing a simulated GPU';
  if (/NVML|nvml/.test(r)) return 'NVML did not start: showing a simulated GPU';
  return 'Simulated GPU';
}

/**
 * The host as a lab text names it: "this 16-core host" when the lab server reports the host's cores,
 * "this host" otherwise (a lab text writes `{hostCores}` where it means it).
 * @example hostPhrase(8) // 'this 8-core host'
 */
export function hostPhrase(cores: number | null): string {
  return cores !== null && cores > 0 ? `this ${cores}-core host` : 'this host';
}

/** `html` with each `{hostCores}` written as `hostPhrase(cores)`. */
export function fillHostCores(html: string, cores: number | null): string {
  return html.replaceAll('{hostCores}', hostPhrase(cores));
}

/**
 * Whether the lab reads a GPU that runs someone else's job (a fleet GPU through `--source prometheus:`): its charts
 * can be watched, but the steps' actions and checks are for a run of the learner's own.
 * @example isWatchOnly({ kind: 'server', source: 'prometheus:http://prom:9090' }) // true
 */
export function isWatchOnly(source: { kind: string; source: string } | null): boolean {
  return source !== null && source.kind === 'server' && source.source.startsWith('prometheus:');
}

/**
 * The one line a lab page served by its lab server says before anything else: what that server reads, and why.
 * @example ownServerLine({ source: 'sim:idle', simulated: true, reason: 'NVML library not found (NVML 12)…' }, 'http://127.0.0.1:8790')
 *   // 'You are on your lab server (127.0.0.1:8790). It has no NVIDIA driver, so it simulates a GPU.'
 */
export function ownServerLine(
  s: { source: string; simulated: boolean; reason: string | null },
  origin: string,
): string {
  const at = `You are on your lab server (${origin.replace(/^https?:\/\//, '')}).`;
  if (!s.simulated) return `${at} It reads this machine's NVIDIA GPU through NVML.`;
  if (s.source.startsWith('replay:')) return `${at} It replays a recording (${s.source.slice(7)}).`;
  const summary = simulatedSummary(s.reason, s.source);
  if (summary.startsWith('No NVIDIA driver')) return `${at} It has no NVIDIA driver, so it simulates a GPU.`;
  if (summary.startsWith('No NVIDIA GPU')) return `${at} It finds no NVIDIA GPU, so it simulates one.`;
  if (summary.startsWith('NVML did not start')) return `${at} NVML did not start there, so it simulates a GPU.`;
  return `${at} It simulates a GPU (${s.source}), as it was started to.`;
}
