/**
 * Lab server benchmark (`node bench/server.ts [seconds, default 10]`, or `benchServer()` from `npm run bench`):
 *  1. cost of one sample of 8 GPUs through the koffi binding (C stub library) vs spawning one
 *     process per sample (nvidia-smi --query-gpu when present, else /bin/true: that approach's floor);
 *  2. the server process's CPU and RSS at 10 Hz with 0 and with 100 SSE clients on loopback;
 *  3. p50/p99 delay from sample (server clock) to client receipt;
 *  4. 500 churning SSE clients (each connects, reads a while, drops, again): the server's peak RSS, and the
 *     seconds until RSS is back near its warm level (the 0-client peak) once the churn ends (goal ≤ 30 s).
 *     The server runs with bench/mem-probe.cjs preloaded, so the bench can split RSS at warm, peak and the end
 *     into V8's heap, external buffers, other anonymous memory (malloc) and file pages.
 * Prints a Markdown table. Needs gcc (for the stub); everything stays on 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNvmlSource } from '../server/sources/nvml.ts';
import { buildStubs } from '../test/fixtures/nvml-stub/build.ts';
import { readMem, type MemReading } from './memory.ts';
import { settle, type Settled } from './server-churn.ts';

const GPUS = 8;
const CLIENTS = 100;
const CHURNERS = 500;
/** "Near the warm level": within this many MB of it, or 10% of it, whichever is more. */
const SETTLE_SLACK_MB = 10;
/** How long to wait for RSS to settle after the churn before calling it not settled, seconds. */
const SETTLE_LIMIT_S = 90;
const HZ = 10;
const root = fileURLToPath(new URL('../', import.meta.url));

/** One benchmark row. */
export interface BenchRow {
  measure: string;
  value: string;
  goal: string;
  note: string;
}

const hasCommand = (cmd: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}
function rssMb(pid: number, field = 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m?.[1] ? Number(m[1]) / 1024 : Number.NaN;
}

/** Per-sample cost of the binding, in microseconds (8 GPUs, host probe included). */
function bindingCost(libraryPath: string): number {
  const source = createNvmlSource({ libraryPath, log: () => {} });
  try {
    for (let i = 0; i < 200; i++) source.read(Date.now());
    const n = 3000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) source.read(Date.now());
    return Number(process.hrtime.bigint() - t0) / 1000 / n;
  } finally {
    source.close();
  }
}

/** Per-sample cost of spawning a process, in microseconds. */
function spawnCost(): { us: number; what: string } {
  const smi = hasCommand('nvidia-smi');
  const [cmd, args] = smi
    ? [
        'nvidia-smi',
        [
          '--query-gpu=utilization.gpu,utilization.memory,memory.used,power.draw,temperature.gpu,clocks.sm',
          '--format=csv,noheader,nounits',
        ],
      ]
    : ['/bin/true', []];
  const n = smi ? 20 : 300;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) spawnSync(cmd as string, args as string[], { stdio: 'ignore' });
  return {
    us: Number(process.hrtime.bigint() - t0) / 1000 / n,
    what: smi ? 'nvidia-smi --query-gpu' : '/bin/true (no nvidia-smi here: the floor)',
  };
}

/** How RSS splits: V8's heap (young and old generation), external buffers, other anonymous memory (malloc), file pages. */
const parts = (r: MemReading): string =>
  `${r.rss.toFixed(1)} MB = V8 heap ${r.heapTotal.toFixed(1)} (young ${r.newSpace.toFixed(1)}, old ${r.oldSpace.toFixed(1)}, live ${r.heapUsed.toFixed(1)}) + external ${r.external.toFixed(1)} + other anonymous ${(r.anon - r.heapTotal - r.external).toFixed(1)} + file pages ${r.file.toFixed(1)}`;

/**
 * Starts the real CLI on port 0 against the stub, with bench/mem-probe.cjs writing its memory use to
 * `probeFile`; resolves with its pid and URL.
 */
async function startServer(
  libraryPath: string,
  probeFile: string,
): Promise<{ pid: number; base: string; token: string; stop(): void }> {
  const token = 'bench'.padEnd(32, '0');
  // A user's second start onwards: Node's compile cache (server/bin.mjs) already holds the stripped TypeScript.
  spawnSync(process.execPath, ['server/bin.mjs', '--help'], { cwd: root, stdio: 'ignore' });
  const child = spawn(
    process.execPath,
    [
      '--require',
      './bench/mem-probe.cjs',
      'server/bin.mjs',
      '--port',
      '0',
      '--source',
      'nvml',
      '--interval',
      String(1000 / HZ),
      '--max-streams',
      '200',
      '--token',
      token,
    ],
    {
      cwd: root,
      env: { ...process.env, SATURATE_NVML_LIB: libraryPath, SATURATE_MEM_PROBE: probeFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr.on('data', () => {});
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before printing its URL`)));
  });
  return { pid: child.pid ?? 0, base: url, token, stop: () => child.kill('SIGTERM') };
}

/**
 * Opens `n` SSE clients; each records Date.now() - sampledAtMs per event. Clients use node:http and
 * look only at each frame's head (sampledAtMs is the second field), so the 100 of them cost little
 * of the CPU the server shares with them.
 */
function openClients(base: string, token: string, n: number, delays: number[]): { abort(): void } {
  const requests: ClientRequest[] = [];
  const marker = '"sampledAtMs":';
  for (let i = 0; i < n; i++) {
    const req = httpGet(`${base}/api/stream?token=${token}`, (res) => {
      res.setEncoding('latin1');
      let tail = '';
      res.on('data', (chunk: string) => {
        const now = Date.now();
        const text = tail + chunk;
        let at = text.indexOf(marker);
        let last = 0;
        while (at >= 0) {
          const end = text.indexOf(',', at);
          if (end < 0) break;
          delays.push(now - Number(text.slice(at + marker.length, end)));
          last = end;
          at = text.indexOf(marker, end);
        }
        tail = text.slice(Math.max(last, text.length - 64)); // a marker split across chunks
      });
    });
    req.on('error', () => {}); // aborted at the end of the run
    requests.push(req);
  }
  return { abort: () => requests.forEach((r) => r.destroy()) };
}

interface Watched {
  cpuPct: number;
  rssMb: number;
  anonMb: number;
}
/** Measures CPU (% of one core), peak RSS and peak anonymous RSS (heap, not the node binary's pages) of `pid` over `seconds`. */
async function watch(pid: number, seconds: number): Promise<Watched> {
  const c0 = cpuSeconds(pid);
  const t0 = Date.now();
  let peak = rssMb(pid);
  let anon = rssMb(pid, 'RssAnon');
  for (let i = 0; i < seconds * 4; i++) {
    await new Promise((r) => setTimeout(r, 250));
    peak = Math.max(peak, rssMb(pid));
    anon = Math.max(anon, rssMb(pid, 'RssAnon'));
  }
  return { cpuPct: (100 * (cpuSeconds(pid) - c0)) / ((Date.now() - t0) / 1000), rssMb: peak, anonMb: anon };
}

/** Runs everything and returns the rows and a Markdown table. */
export async function benchServer(seconds = 10): Promise<{ rows: BenchRow[]; markdown: string }> {
  const kit = buildStubs();
  const lib = kit.withConfig({ gpus: GPUS, procs: 2 });
  try {
    const binding = bindingCost(lib);
    const spawned = spawnCost();
    const probeDir = mkdtempSync(join(tmpdir(), 'bench-server-'));
    const probe = join(probeDir, 'memory.ndjson');
    const server = await startServer(lib, probe);
    const mem = (): MemReading => readMem(server.pid, probe, 0);
    // The floor: a Node process that does nothing but wake at the same rate.
    const floor = spawn(process.execPath, ['-e', `setInterval(() => {}, ${1000 / HZ})`], { stdio: 'ignore' });
    let idle: Watched;
    let bare: Watched;
    let loaded: Watched;
    let churned: Watched;
    let settled: Settled;
    let warmMem: MemReading;
    let peakMem: MemReading;
    let endMem: MemReading;
    let churnCounts = { opened: 0, refused: 0, failed: 0 };
    let warmTargetMb = 0;
    let anonTargetMb = 0;
    const delays: number[] = [];
    try {
      await new Promise((r) => setTimeout(r, 10_000)); // steady state: startup compilation done
      [idle, bare] = await Promise.all([watch(server.pid, seconds), watch(floor.pid ?? 0, seconds)]);
      floor.kill();
      warmMem = mem();
      // The clients run in a fresh process of their own, like browsers: the bench runner's heap (Lighthouse,
      // builds) would otherwise add its GC pauses to the delays it measures.
      const clients = spawn(
        process.execPath,
        [fileURLToPath(import.meta.url), '--clients', server.base, server.token, String(CLIENTS), String(seconds)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      clients.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const done = new Promise<void>((resolve) => clients.on('exit', () => resolve()));
      await new Promise((r) => setTimeout(r, 1000)); // let every client connect (they measure from then on)
      loaded = await watch(server.pid, seconds);
      await done;
      delays.push(...(JSON.parse(out || '[]') as number[]));
      // Churn: 500 clients in a process of their own; then how long until RSS is back near the warm level.
      const churners = spawn(
        process.execPath,
        [
          fileURLToPath(new URL('./server-churn.ts', import.meta.url)),
          server.base,
          server.token,
          String(CHURNERS),
          String(seconds),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let churnOut = '';
      churners.stdout.on('data', (d: Buffer) => (churnOut += d.toString()));
      const churnDone = new Promise<void>((resolve) => churners.on('exit', () => resolve()));
      peakMem = mem();
      const peakSampler = setInterval(() => {
        const r = mem();
        if (r.rss > peakMem.rss) peakMem = r;
      }, 500);
      churned = await watch(server.pid, seconds);
      await churnDone;
      clearInterval(peakSampler);
      churnCounts = JSON.parse(churnOut || '{"opened":0,"refused":0,"failed":0}') as typeof churnCounts;
      warmTargetMb = Math.max(idle.rssMb + SETTLE_SLACK_MB, idle.rssMb * 1.1);
      anonTargetMb = Math.max(idle.anonMb + SETTLE_SLACK_MB, idle.anonMb * 1.1);
      settled = await settle(
        () => ({ rssMb: rssMb(server.pid), anonMb: rssMb(server.pid, 'RssAnon') }),
        { rssMb: warmTargetMb, anonMb: anonTargetMb },
        SETTLE_LIMIT_S,
      );
      endMem = mem();
    } finally {
      server.stop();
      floor.kill();
      setTimeout(() => rmSync(probeDir, { recursive: true, force: true }), 1000).unref();
    }
    const f = (x: number, d = 1): string => x.toFixed(d);
    const rows: BenchRow[] = [
      {
        measure: `one sample, ${GPUS} GPUs, koffi binding (stub lib)`,
        value: `${f(binding)} µs`,
        goal: '',
        note: `${f((binding * HZ) / 1e4, 3)}% of a core at ${HZ} Hz`,
      },
      {
        measure: `one sample by spawning a process`,
        value: `${f(spawned.us)} µs`,
        goal: '',
        note: `${spawned.what}; ${f(spawned.us / binding, 0)}× the binding`,
      },
      {
        measure: `server CPU, ${HZ} Hz, 0 clients`,
        value: `${f(idle.cpuPct, 2)}% of a core`,
        goal: '< 1%',
        note: `RSS ${f(idle.rssMb)} MB (${f(idle.anonMb)} MB anonymous); an empty Node process waking at ${HZ} Hz: ${f(bare.cpuPct, 2)}%`,
      },
      {
        measure: `server CPU, ${HZ} Hz, ${CLIENTS} SSE clients`,
        value: `${f(loaded.cpuPct, 2)}% of a core`,
        goal: '',
        note: `${delays.length} events received in ${seconds} s`,
      },
      {
        measure: `server RSS, ${CLIENTS} clients (peak)`,
        value: `${f(loaded.rssMb)} MB`,
        goal: '< 100 MB',
        note: `${f(loaded.anonMb)} MB anonymous; the rest is the node binary's pages, shared with other node processes`,
      },
      {
        measure: `server RSS, ${CHURNERS} churning SSE clients (peak)`,
        value: `${f(churned.rssMb)} MB`,
        goal: '',
        note: `warm ${f(idle.rssMb)} MB; ${churnCounts.opened} streams opened, ${churnCounts.refused} refused (503), ${churnCounts.failed} failed or timed out in ${seconds} s`,
      },
      {
        measure: 'RSS back near warm after the churn',
        value: settled.rssS === null ? `not within ${SETTLE_LIMIT_S} s` : `${f(settled.rssS)} s`,
        goal: '≤ 30 s',
        note: `${settled.rssS !== null && settled.rssS <= 30 ? 'within' : 'NOT within'} 30 s; "near" = ≤ ${f(warmTargetMb)} MB (warm + ${SETTLE_SLACK_MB} MB or +10%); ${f(settled.lastRssMb)} MB at the end`,
      },
      {
        measure: 'anonymous RSS back near warm after the churn',
        value: settled.anonS === null ? `not within ${SETTLE_LIMIT_S} s` : `${f(settled.anonS)} s`,
        goal: '≤ 30 s',
        note: `heap and buffers: warm ${f(idle.anonMb)} MB, "near" = ≤ ${f(anonTargetMb)} MB; ${f(settled.lastAnonMb)} MB at the end`,
      },
      {
        measure: 'server memory: warm / churn peak / after settling',
        value: `${f(warmMem.rss)} / ${f(peakMem.rss)} / ${f(endMem.rss)} MB`,
        goal: '',
        note: `warm ${parts(warmMem)}; peak ${parts(peakMem)}; after ${parts(endMem)} (server/settle.ts gives V8's young generation back once the churn is over; other anonymous memory above warm is malloc memory glibc keeps after the churn frees it, which malloc_trim(0) gives back: node bench/churn-memory.ts --trim-after-s 15, server/README.md)`,
      },
      {
        measure: 'sample → client delay p50 / p99',
        value: `${pct(delays, 50)} / ${pct(delays, 99)} ms`,
        goal: 'p99 < 20 ms',
        note: 'server clock to client Date.now(), 1 ms resolution; the 100 clients share one Node process and the 2 cores with the server',
      },
    ];
    const markdown = [
      '| measure | value | goal | note |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${r.measure} | ${r.value} | ${r.goal} | ${r.note} |`),
    ].join('\n');
    return { rows, markdown };
  } finally {
    kit.dispose();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--clients') {
  // Client mode: connect, wait a second for everyone, record delays for `seconds`, print them as JSON.
  const [base = '', token = '', n = '100', secs = '10'] = process.argv.slice(3);
  const delays: number[] = [];
  const clients = openClients(base, token, Number(n), delays);
  await new Promise((r) => setTimeout(r, 1000));
  delays.length = 0;
  await new Promise((r) => setTimeout(r, Number(secs) * 1000));
  clients.abort();
  process.stdout.write(JSON.stringify(delays));
  process.exit(0);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const seconds = Number(process.argv[2] ?? 10);
  const { markdown } = await benchServer(Number.isFinite(seconds) && seconds > 0 ? seconds : 10);
  console.log(markdown);
}
