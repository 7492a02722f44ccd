/**
 * The pieces of `npm run demo:fleet` (scripts/demo-fleet.ts): the simulated nodes, the Prometheus configuration
 * that scrapes them with the token, and a child process whose port is read from what it prints.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

/** The demo's nodes: a host name (`--dcgm-hostname`) and a simulated source of 4 GPUs each. */
export const DEMO_NODES = [
  { hostname: 'demo-data-starved', source: 'sim:data-starved?gpus=4' },
  { hostname: 'demo-idle', source: 'sim:idle?gpus=4' },
  { hostname: 'demo-small-kernels', source: 'sim:small-kernels?gpus=4' },
] as const;

/** Seconds between scrapes: short, so that a minute of data comes in a minute. */
export const DEMO_SCRAPE_S = 2;

/**
 * prometheus.yml scraping `targets` (host:port) with the lab servers' token read from `tokenFile` (a lab server's
 * /metrics answers 401 without it).
 */
export function demoPrometheusConfig(targets: readonly string[], tokenFile: string): string {
  return [
    'global:',
    `  scrape_interval: ${DEMO_SCRAPE_S}s`,
    `  evaluation_interval: ${DEMO_SCRAPE_S}s`,
    'scrape_configs:',
    '  - job_name: dcgm',
    '    authorization:',
    `      credentials_file: ${tokenFile}`,
    '    static_configs:',
    `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    '',
  ].join('\n');
}

/** A started child process and the port it listens on. */
export interface Child {
  name: string;
  pid: number;
  port: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** A lab server says where it listens in the URL it prints. */
const LISTEN = /http:\/\/127\.0\.0\.1:(\d+)\//;

/** A free loopback port (for Prometheus, which cannot be told port 0 and then asked which it got). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `command args` and resolves once it listens: when its output names its port (a lab server; within 180 s,
 * as a reader's first start builds the site), or, given `port`, when `GET /-/ready` there answers (Prometheus).
 * Its output is kept, and shown when it fails to start.
 */
export function startChild(
  name: string,
  command: string,
  args: string[],
  opts: Pick<SpawnOptions, 'cwd' | 'env'> & { port?: number },
  onExit: (code: number | null) => void,
): Promise<Child> {
  const child = spawn(command, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start in 180 s:\n${out.slice(-2000)}`)), 180_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.on('error', (e) =>
      fail(new Error(`${name}: ${e.message}${command === 'prometheus' ? ' (apt-get install prometheus)' : ''}`)),
    );
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let started = false;
    child.once('exit', (code) => {
      if (!started) fail(new Error(`${name} exited (${code}) while starting:\n${out.slice(-2000)}`));
      else onExit(code);
    });
    const listening = (port: number) => {
      if (started) return;
      started = true;
      clearTimeout(timer);
      resolve({
        name,
        pid: child.pid!,
        port,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(kill);
        },
      });
    };
    const onData = (b: Buffer) => {
      out = (out + b.toString()).slice(-20_000);
      const port = opts.port === undefined ? LISTEN.exec(out)?.[1] : undefined;
      if (port !== undefined) listening(Number(port));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    if (opts.port !== undefined) {
      const port = opts.port;
      void (async () => {
        while (!started && child.exitCode === null) {
          const ok = await fetch(`http://127.0.0.1:${port}/-/ready`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) listening(port);
          else await new Promise((r) => setTimeout(r, 200));
        }
      })();
    }
  });
}

/** Waits until Prometheus at `url` holds `count` GPUs' utilisation series. @throws after `timeoutMs`. */
export async function waitForGpus(url: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count(DCGM_FI_DEV_GPU_UTIL)')}`);
      const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
      seen = Number(body.data?.result?.[0]?.value[1] ?? 0);
      if (seen >= count) return;
    } catch {
      /* not answering yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `Prometheus at ${url} scraped ${seen} of ${count} GPUs in ${timeoutMs / 1000} s: see its targets page, ${url}/targets.`,
  );
}
