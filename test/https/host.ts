/**
 * A static HTTPS host for tests and the bench: serves a built site (dist-base/) under its base path
 * on 127.0.0.1 with a self-signed certificate made here with `openssl`, the way GitHub Pages or
 * Netlify would: a directory URL without its slash is redirected (301) to it, unknown paths get the
 * site's 404.html, it speaks HTTP/2 (HTTP/1.1 too) as those hosts do, and the headers in the build's `_headers` file (see src/integrations/static-host.ts)
 * are applied, so the tests exercise the very host config we ship. Bodies and compression come from
 * the lab server's static handler (server/static.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStaticHandler } from '../../server/static.ts';
import { headersFor, parseHeadersFile, type HeaderRule } from './headers.ts';

/** A self-signed certificate for 127.0.0.1 and localhost. */
export interface TestCert {
  key: string;
  cert: string;
  /** base64 SHA-256 of the public key, for Chromium's --ignore-certificate-errors-spki-list. */
  spkiSha256: string;
}

/** Makes a throwaway EC certificate for 127.0.0.1 with openssl (Debian's `openssl` package). */
export function makeCert(): TestCert {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-cert-'));
  try {
    const r = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0)
      throw new Error(`openssl could not make a test certificate (apt-get install openssl): ${r.stderr || r.error}`);
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert,
      spkiSha256: createHash('sha256').update(spki).digest('base64'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A running HTTPS host. */
export interface HttpsSite {
  /** "https://127.0.0.1:PORT" */
  origin: string;
  /** The site's home: origin + base, e.g. "https://127.0.0.1:PORT/saturate/". */
  url: string;
  /** The base path the site was built with, e.g. "/saturate/". */
  base: string;
  /** The directory served (a private copy when `copy` was set). */
  dir: string;
  port: number;
  cert: TestCert;
  /** Stops listening (the files stay); `start` again on the same port restarts the same origin. */
  stop: () => Promise<void>;
  /** Stops and deletes a private copy. */
  dispose: () => Promise<void>;
}

export interface HttpsSiteOptions {
  /** The built site (default dist-base). */
  dir?: string;
  /** The path the site was built under (default: read from the build's manifest scope). */
  base?: string;
  /** Fixed port; 0 (default) picks a free one. */
  port?: number;
  /** Serve a private copy, so a test can change it (a new deploy). */
  copy?: boolean;
  cert?: TestCert;
}

/** The base path a build was made for: its web manifest's scope. */
export function builtBase(dir: string): string {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.webmanifest'), 'utf8')) as { scope?: string };
  return manifest.scope ?? '/';
}

/** Serves a built site over HTTPS under its base path. */
export async function startHttpsSite(options: HttpsSiteOptions = {}): Promise<HttpsSite> {
  const source = options.dir ?? 'dist-base';
  if (!existsSync(join(source, 'sw.js')))
    throw new Error(`no built site in ${source}/: run \`BASE_PATH=/saturate/ OUT_DIR=${source} npm run build\` first`);
  const dir = options.copy ? mkdtempSync(join(tmpdir(), 'saturate-https-')) : source;
  if (options.copy) cpSync(source, dir, { recursive: true });
  const base = options.base ?? builtBase(dir);
  const cert = options.cert ?? makeCert();
  const handle = createStaticHandler(dir);
  const rules = (): HeaderRule[] =>
    existsSync(join(dir, '_headers')) ? parseHeadersFile(readFileSync(join(dir, '_headers'), 'utf8')) : [];

  const server: Http2SecureServer = createSecureServer(
    { key: cert.key, cert: cert.cert, allowHTTP1: true },
    (req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'https://host');
        const path = url.pathname;
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.writeHead(405, { Allow: 'GET, HEAD' }).end();
          return;
        }
        if (`${path}/` === base) {
          res.writeHead(301, { Location: base }).end();
          return;
        }
        if (!path.startsWith(base)) {
          res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not under the site base');
          return;
        }
        const rest = `/${path.slice(base.length)}`;
        // GitHub Pages and Netlify redirect a directory URL without its trailing slash.
        if (!rest.endsWith('/') && isDirectory(join(dir, rest))) {
          res.writeHead(301, { Location: `${path}/${url.search}` }).end();
          return;
        }
        const accept = req.headers['accept-encoding'];
        const response = await handle(req.method, rest, Array.isArray(accept) ? accept.join(',') : accept);
        if (!response) {
          res.writeHead(400).end();
          return;
        }
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
        delete headers['connection']; // a connection-level header, refused by HTTP/2
        // A real host has no Service-Worker-Allowed header unless asked for; the host config decides.
        delete headers['service-worker-allowed'];
        delete headers['cache-control'];
        for (const [name, value] of Object.entries(headersFor(rules(), path))) headers[name.toLowerCase()] = value;
        res.writeHead(response.status, headers);
        res.end(Buffer.from(await response.arrayBuffer()));
      })().catch((e: unknown) => {
        res.writeHead(500).end(String(e));
      });
    },
  );
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  // HTTP/2 sessions (and HTTP/1.1 sockets) outlive close(): end them so a stopped host is really gone.
  const sessions = new Set<Http2Session>();
  server.on('session', (s: Http2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(options.port ?? 0);
  const origin = `https://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const s of sessions) s.destroy();
      for (const s of sockets) s.destroy();
    });
  return {
    origin,
    url: `${origin}${base}`,
    base,
    dir,
    port,
    cert,
    stop,
    dispose: async () => {
      await stop();
      if (options.copy) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
