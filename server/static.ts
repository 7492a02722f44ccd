/**
 * Serves the built site (dist/) from the lab server, so `npm start` is one origin. Directory URLs
 * serve index.html with or without a trailing slash (Astro `build.format: 'directory'`), unknown
 * paths get dist/404.html with status 404, and the service worker gets the headers it needs.
 *
 * Text files go out compressed (Brotli, else gzip, as the client accepts), compressed once per file
 * version and kept in memory: the question bank is 478 KB as JSON and 103 KB as Brotli, which on a
 * phone's slow connection is most of a practice quiz's load time.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
/** Compressed bodies kept, in bytes (the whole site compresses to a few MB). */
const CACHE_BYTES = 32 * 1024 * 1024;
/**
 * Brotli quality. The first visit's offline install asks for every text file once, each compressed on that first
 * request: the site's 202 text files (5.97 MB) take 13.7 s at quality 9 and 0.2 s at 6, for 1.627 MB against 1.641 MB
 * (`node bench/static-compress.ts`). At 9 a phone's install waited on the server's CPU; at 6 it waits on the network.
 */
export const BROTLI_QUALITY = 6;
/** Smaller files are sent as they are: compression would save less than its headers. */
const MIN_COMPRESS_BYTES = 1024;

type Encoding = 'br' | 'gzip';

/** The encoding to use for a request's Accept-Encoding, or null. Quality values of 0 refuse one. */
export function pickEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Set(
    acceptEncoding
      .toLowerCase()
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q\s*=\s*0(\.0*)?\s*$/.test(q))
      .map(([name]) => name?.trim()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

const compressible = (contentType: string): boolean =>
  /^(text\/|application\/(json|javascript|manifest\+json|xml|x-ndjson)|image\/svg\+xml)/.test(contentType);

/** Content types by extension; anything else is application/octet-stream. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
  '.ndjson': 'application/x-ndjson',
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

/** Answers GET/HEAD for a URL path, or null for a path it refuses. */
export type StaticHandler = (method: string, urlPath: string, acceptEncoding?: string) => Promise<Response | null>;

/**
 * A handler for GET/HEAD `urlPath` under `root`, compressed for `acceptEncoding` where that helps.
 * Returns null for paths it refuses (traversal, bad encoding) so the caller can answer 400.
 */
export function createStaticHandler(root: string): StaticHandler {
  const base = resolve(root);
  const cache = new Map<string, Buffer<ArrayBuffer>>();
  let cached = 0;
  /** The file's bytes, compressed when it is text and the client takes an encoding. */
  const body = async (
    file: string,
    headers: Record<string, string>,
    acceptEncoding: string | undefined,
  ): Promise<Buffer<ArrayBuffer>> => {
    const raw = await readFile(file);
    const encoding = pickEncoding(acceptEncoding);
    if (!compressible(headers['Content-Type'] ?? '')) return raw;
    headers['Vary'] = 'Accept-Encoding';
    if (encoding === null || raw.length < MIN_COMPRESS_BYTES) return raw;
    const { mtimeMs, size } = await stat(file);
    const key = `${encoding}:${mtimeMs}:${size}:${file}`;
    let out = cache.get(key);
    if (!out) {
      out = (
        encoding === 'br'
          ? await brotli(raw, {
              params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
            })
          : await gzipAsync(raw, { level: 9 })
      ) as Buffer<ArrayBuffer>;
      if (cached + out.length > CACHE_BYTES) {
        cache.clear();
        cached = 0;
      }
      cache.set(key, out);
      cached += out.length;
    }
    headers['Content-Encoding'] = encoding;
    return out;
  };
  return async (method, urlPath, acceptEncoding) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    if (decoded.includes('\0') || decoded.split('/').includes('..')) return null;
    const target = resolve(join(base, decoded));
    if (target !== base && !target.startsWith(base + sep)) return null;
    const candidates = decoded.endsWith('/')
      ? [join(target, 'index.html')]
      : [target, join(target, 'index.html'), `${target}.html`];
    for (const file of candidates) {
      if (await isFile(file)) {
        const headers = headersFor(file, decoded);
        const bytes = await body(file, headers, acceptEncoding);
        return new Response(method === 'HEAD' ? null : bytes, { status: 200, headers });
      }
    }
    const notFound = join(base, '404.html');
    if (await isFile(notFound)) {
      const headers = headersFor(notFound, '/404.html');
      const bytes = await body(notFound, headers, acceptEncoding);
      return new Response(method === 'HEAD' ? null : bytes, { status: 404, headers });
    }
    return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  };
}
