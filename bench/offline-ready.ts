/**
 * How long a first visit on a phone takes until the app works offline: from opening the home page to the service
 * worker being active and in control (its whole precache stored), on Lighthouse's mobile profile, slow 4G
 * (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up) and 4× CPU slowdown. Also the bytes that crossed the
 * "network" and the requests made.
 *
 * The network is a throttling proxy in front of the lab server (which compresses text, as static hosts do): every
 * request waits one round trip before its first byte, and all responses share one 1.6 Mbit/s downlink. A proxy
 * rather than DevTools' throttling, because DevTools throttles a page's own requests and not its worker's, and the
 * worker makes nearly all of them. The 4× CPU slowdown is DevTools' and applies to the page (the worker's thread
 * runs unthrottled: say so beside the number).
 *
 * Two hosts: HTTP/1.1 (a plain static server; Chrome runs only a few of a worker's requests at once on one host)
 * and HTTP/2 over TLS (what GitHub Pages, Netlify and Cloudflare Pages serve: every request on one connection).
 * The same round trip and downlink apply to both.
 *
 *   node bench/offline-ready.ts [--root=DIR] [--dist=DIR] [--runs=N] [--protocol=http1|h2]
 * `--root` is the checkout whose lab server serves (default: this one), `--dist` its build (default: ROOT/dist), so
 * an older build can be measured the same way: `node bench/offline-ready.ts --root=/tmp/old`.
 */
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { makeCert, type TestCert } from '../test/https/host.ts';

/** The host's protocol: plain HTTP/1.1, or HTTP/2 over TLS. */
export type HostProtocol = 'http1' | 'h2';
export const PROTOCOLS: Record<HostProtocol, string> = { http1: 'HTTP/1.1 host', h2: 'HTTP/2 host (TLS)' };

const RTT_MS = 150;
const DOWN_BYTES_PER_S = 1_600_000 / 8;
const CPU_SLOWDOWN = 4;

export interface OfflineReadyRun {
  seconds: number;
  bytes: number;
  requests: number;
}

/** One shared downlink: each chunk is sent when the link is free, at DOWN_BYTES_PER_S. */
function downlink() {
  let freeAt = 0;
  return (bytes: number): number => {
    const now = Date.now();
    freeAt = Math.max(freeAt, now) + (bytes / DOWN_BYTES_PER_S) * 1000;
    return freeAt - now;
  };
}

/** Headers that belong to one HTTP/1.1 connection (HTTP/2 refuses them) and HTTP/2's pseudo-headers. */
const hopByHop = (headers: IncomingHttpHeaders): IncomingHttpHeaders =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([k]) => !k.startsWith(':') && !['connection', 'keep-alive', 'transfer-encoding', 'upgrade'].includes(k),
    ),
  );

/**
 * A proxy on loopback that adds a round trip per request and paces every response through one downlink; with a
 * certificate it speaks HTTP/2 over TLS (and HTTP/1.1 to clients that don't offer h2).
 */
async function throttlingProxy(target: string, cert?: TestCert) {
  const link = downlink();
  let bytes = 0;
  let requests = 0;
  const handler = (req: IncomingMessage | Http2ServerRequest, answerTo: ServerResponse | Http2ServerResponse) => {
    requests++;
    // HTTP/2's compatibility response takes the same writeHead/write/end calls as HTTP/1.1's.
    const res = answerTo as ServerResponse;
    setTimeout(() => {
      const headers = { ...hopByHop(req.headers), host: new URL(target).host }; // the lab server checks Host
      const up = request(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, hopByHop(answer.headers));
        let chain = Promise.resolve();
        answer.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          answer.pause();
          const wait = link(chunk.length);
          chain = chain.then(
            () =>
              new Promise<void>((done) =>
                setTimeout(() => {
                  res.write(chunk);
                  answer.resume();
                  done();
                }, wait),
              ),
          );
        });
        answer.on('end', () => void chain.then(() => res.end()));
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    }, RTT_MS);
  };
  const server = cert
    ? createSecureServer({ key: cert.key, cert: cert.cert, allowHTTP1: true }, handler)
    : createServer(handler);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `${cert ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ bytes, requests }),
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** Starts `root`'s lab server over `dist` on a free port; resolves with its origin. */
async function labServer(root: string, dist: string) {
  const child = spawn(
    process.execPath,
    [join(root, 'server/bin.mjs'), '--port', '0', '--source', 'sim:idle', '--static', dist],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) ok(m[1]!);
    });
    child.on('exit', (code) => fail(new Error(`lab server exited (${code}): ${out}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Median-of-`runs` time to offline on the phone profile, each run a fresh browser profile. */
export async function benchOfflineReady(
  root = process.cwd(),
  dist = join(root, 'dist'),
  runs = 3,
  protocol: HostProtocol = 'http1',
): Promise<OfflineReadyRun[]> {
  const lab = await labServer(root, dist);
  const executablePath = chromiumPath();
  const cert = protocol === 'h2' ? makeCert() : undefined;
  // Chromium trusts the test certificate by its key, so the worker sees a valid HTTPS origin.
  const args = cert ? [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${cert.spkiSha256}`] : CHROMIUM_ARGS;
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args });
  const out: OfflineReadyRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const proxy = await throttlingProxy(lab.url, cert);
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        ignoreHTTPSErrors: !!cert,
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
      const t0 = Date.now();
      await page.goto(`${proxy.url}/`, { timeout: 0 });
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
        if (!navigator.serviceWorker.controller)
          await new Promise((ok) => navigator.serviceWorker.addEventListener('controllerchange', ok));
      });
      out.push({ seconds: (Date.now() - t0) / 1000, ...proxy.counts() });
      await context.close();
      await proxy.close();
    }
  } finally {
    await browser.close();
    lab.stop();
  }
  return out;
}

/** The median run by time. */
export const medianRun = (runs: OfflineReadyRun[]): OfflineReadyRun =>
  [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const root = resolve(flag('root') ?? process.cwd());
  const chosen = flag('protocol');
  if (chosen && !(chosen in PROTOCOLS)) throw new Error(`--protocol must be http1 or h2, not ${chosen}`);
  for (const protocol of chosen ? [chosen as HostProtocol] : (['http1', 'h2'] as const)) {
    const dist = resolve(flag('dist') ?? join(root, 'dist'));
    const runs = await benchOfflineReady(root, dist, Number(flag('runs') ?? 3), protocol);
    const m = medianRun(runs);
    console.log(
      `offline-ready, ${PROTOCOLS[protocol]}, slow 4G (150 ms, 1.6 Mbit/s) with 4× page CPU: median ` +
        `${m.seconds.toFixed(1)} s, ${(m.bytes / 1024 / 1024).toFixed(2)} MB in ${m.requests} requests ` +
        `(runs: ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s; ${root})`,
    );
  }
}
