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
