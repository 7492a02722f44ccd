/**
 * The site can live under a sub-path (`BASE_PATH=/saturate/ npm run build` for GitHub Pages):
 * every link the site writes goes through `withBase`, so no root-absolute URL is left in the build.
 * Pure: the base is a parameter; the default is Vite's `import.meta.env.BASE_URL` ("/" in tests and Node).
 */

/**
 * Turns `BASE_PATH` into the form Astro and the service worker want: "/" or "/a/b/" (leading and trailing slash).
 * @throws Error when the value is a full URL, has a query or hash, or climbs with "..": the message says what to pass.
 * @example normaliseBasePath('saturate') // '/saturate/'
 * @example normaliseBasePath(undefined) // '/'
 */
export function normaliseBasePath(input: string | undefined): string {
  const raw = (input ?? '').trim();
  if (raw === '' || raw === '/') return '/';
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//'))
    throw new Error(
      `BASE_PATH "${raw}" is a URL: pass only its path, e.g. BASE_PATH=/saturate/ (the host goes in SITE_URL).`,
    );
  if (/[?#\s\\]/.test(raw) || raw.split('/').some((s) => s === '..' || s === '.'))
    throw new Error(`BASE_PATH "${raw}" is not a plain path: use letters, digits, - and /, e.g. BASE_PATH=/saturate/.`);
  const segments = raw.split('/').filter(Boolean);
  return `/${segments.join('/')}/`;
}

/** Vite's base URL when this runs in a build; "/" elsewhere (Node scripts, unit tests). */
const viteBase = (): string => (import.meta as ImportMeta & { env?: { BASE_URL?: string } }).env?.BASE_URL ?? '/';

/**
 * A site path under the base: `withBase('/cards/x/')` is "/saturate/cards/x/" when the site lives at /saturate/.
 * Leaves full URLs, protocol-relative URLs, hashes and queries untouched.
 * @example withBase('/topics/', '/saturate/') // '/saturate/topics/'
 * @example withBase('/', '/saturate/') // '/saturate/'
 */
export function withBase(path: string, base: string = viteBase()): string {
  if (/^([a-z][a-z0-9+.-]*:|\/\/|#|\?)/i.test(path)) return path;
  const b = base.endsWith('/') ? base : `${base}/`;
  return `${b}${path.replace(/^\/+/, '')}`;
}

/**
 * The path of a URL with the base taken off (always starting with "/"), for comparing against site routes.
 * @example withoutBase('/saturate/cards/x/', '/saturate/') // '/cards/x/'
 */
export function withoutBase(pathname: string, base: string = viteBase()): string {
  const b = base.endsWith('/') ? base : `${base}/`;
  if (pathname.startsWith(b)) return `/${pathname.slice(b.length)}`;
  if (`${pathname}/` === b) return '/';
  return pathname;
}
