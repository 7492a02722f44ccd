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
 *   node bench/offline-ready.ts [--root=DIR] [--dist=DIR] [--runs=N]
 * `--root` is the checkout whose lab server serves (default: this one), `--dist` its build (default: ROOT/dist), so
 * an older build can be measured the same way: `node bench/offline-ready.ts --root=/tmp/old`.
 */
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';

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

/** A proxy on loopback that adds a round trip per request and paces every response through one downlink. */
async function throttlingProxy(target: string) {
  const link = downlink();
  let bytes = 0;
  let requests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    setTimeout(() => {
      const headers = { ...req.headers, host: new URL(target).host }; // the lab server checks Host
      const up = request(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
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
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
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
): Promise<OfflineReadyRun[]> {
  const lab = await labServer(root, dist);
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const out: OfflineReadyRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const proxy = await throttlingProxy(lab.url);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
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
  const runs = await benchOfflineReady(root, resolve(flag('dist') ?? join(root, 'dist')), Number(flag('runs') ?? 3));
  const m = medianRun(runs);
  console.log(
    `offline-ready on slow 4G (150 ms, 1.6 Mbit/s) with 4× page CPU: median ${m.seconds.toFixed(1)} s, ` +
      `${(m.bytes / 1024 / 1024).toFixed(2)} MB in ${m.requests} requests ` +
      `(runs: ${runs.map((r) => r.seconds.toFixed(1)).join(', ')} s; ${root})`,
  );
}
