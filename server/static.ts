/**
 * Serves the built site (dist/) from the lab server, so `npm start` is one origin. Directory URLs
 * serve index.html with or without a trailing slash (Astro `build.format: 'directory'`), unknown
 * paths get dist/404.html with status 404, and the service worker gets the headers it needs.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

/** Content types by extension; anything else is application/octet-stream. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json; charset=utf-8', '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8', '.txt': 'text/plain; charset=utf-8', '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.webp': 'image/webp', '.avif': 'image/avif', '.ico': 'image/x-icon', '.woff': 'font/woff', '.woff2': 'font/woff2',
  '.wasm': 'application/wasm', '.md': 'text/markdown; charset=utf-8', '.ndjson': 'application/x-ndjson',
};

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function headersFor(path: string, urlPath: string): Record<string, string> {
  const ext = extname(path).toLowerCase();
  const headers: Record<string, string> = { 'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream' };
  if (/(^|\/)sw\.js$/.test(urlPath)) {
    // The service worker must be revalidated on every load, and may control the whole site.
    headers['Service-Worker-Allowed'] = '/';
    headers['Cache-Control'] = 'no-cache';
  } else if (urlPath.startsWith('/_astro/')) headers['Cache-Control'] = 'public, max-age=31536000, immutable';
  else headers['Cache-Control'] = 'no-cache';
  return headers;
}

/**
 * A handler for GET/HEAD `urlPath` under `root`. Returns null for paths it refuses (traversal,
 * bad encoding) so the caller can answer 400.
 */
export function createStaticHandler(root: string): (method: string, urlPath: string) => Promise<Response | null> {
  const base = resolve(root);
  return async (method, urlPath) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    if (decoded.includes('\0') || decoded.split('/').includes('..')) return null;
    const target = resolve(join(base, decoded));
    if (target !== base && !target.startsWith(base + sep)) return null;
    const candidates = decoded.endsWith('/') ? [join(target, 'index.html')] : [target, join(target, 'index.html'), `${target}.html`];
    for (const file of candidates) {
      if (await isFile(file)) {
        const body = method === 'HEAD' ? null : await readFile(file);
        return new Response(body, { status: 200, headers: headersFor(file, decoded) });
      }
    }
    const notFound = join(base, '404.html');
    if (await isFile(notFound)) {
      return new Response(method === 'HEAD' ? null : await readFile(notFound), { status: 404, headers: headersFor(notFound, '/404.html') });
    }
    return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  };
}
