/**
 * The one line a learner runs on the GPU machine so that a hosted copy of the site (GitHub Pages,
 * Netlify…) may call their lab server. Pure: the page passes `location.origin`.
 */

/** Loopback hosts: a page served from one of these over http is the lab server's own page (same origin). */
const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/;

/**
 * The command that lets `origin` use the learner's lab server, or null when no flag is needed
 * (the page is served over http from this machine, as `npm start` does).
 * @example labServerCommand('https://me.github.io') // 'npm start -- --allow-origin https://me.github.io'
 * @example labServerCommand('http://127.0.0.1:8790') // null
 */
export function labServerCommand(origin: string): string | null {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.protocol === 'http:' && LOOPBACK.test(url.hostname)) return null;
  return `npm start -- --allow-origin ${url.origin}`;
}

/**
 * A step's workload command with the lab server's URL (and token) added, so the workload reports its throughput
 * there (`--url`, workloads/_common.py); the command as written when no server is known or it is not a workload.
 * @example runCommand('python workloads/small_batch.py --batch-size 128', 'http://127.0.0.1:8790/?token=abc')
 *   // "python workloads/small_batch.py --batch-size 128 --url 'http://127.0.0.1:8790/?token=abc'"
 */
export function runCommand(run: string, serverUrl: string | null): string {
  if (!serverUrl || !/^python3? workloads\//.test(run) || /\s--url\b/.test(run)) return run;
  return `${run} --url '${serverUrl.replaceAll("'", '')}'`;
}
