/**
 * Where the lab server's memory goes under SSE churn, and whether it comes back:
 * `node bench/churn-memory.ts [--env KEY=VALUE]… [--node-arg ARG]… [--gc-after] [--trim-after-s N] [--churn-s 10] [--settle-s 60]`.
 * Starts the server (8 stub GPUs at 10 Hz, as bench/server.ts does) with bench/mem-probe.cjs preloaded, waits
 * until it is warm, churns 500 SSE clients (bench/server-churn.ts) and then watches it settle. Every second it
 * reads /proc/<pid>/status and /proc/<pid>/smaps and the probe's process.memoryUsage(), and prints a timeline
 * and the breakdown at warm, peak and the end. When the churn ends, `--gc-after` sends SIGUSR2 (a full GC; pass
 * --node-arg --expose-gc), and `--trim-after-s N` calls glibc's malloc_trim(0) N s later. Everything stays on
 * 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildStubs } from '../test/fixtures/nvml-stub/build.ts';
import { describe, readMem } from './memory.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    env: { type: 'string', multiple: true, default: [] },
    'node-arg': { type: 'string', multiple: true, default: [] },
    'gc-after': { type: 'boolean', default: false },
    'trim-after-s': { type: 'string', default: '0' },
    'churn-s': { type: 'string', default: '10' },
    'settle-s': { type: 'string', default: '60' },
  },
});
const kit = buildStubs();
const dir = mkdtempSync(join(tmpdir(), 'churn-mem-'));
const probe = join(dir, 'probe.ndjson');
const token = 'bench'.padEnd(32, '0');
const extraEnv = Object.fromEntries(
  values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
spawnSync(process.execPath, ['server/bin.mjs', '--help'], { cwd: root, stdio: 'ignore' }); // compile cache warm
const child = spawn(
  process.execPath,
  [
    ...values['node-arg'],
    '--require',
    './bench/mem-probe.cjs',
    'server/bin.mjs',
    ...['--port', '0', '--source', 'nvml', '--interval', '100', '--max-streams', '200', '--token', token],
  ],
  {
    cwd: root,
    env: {
      ...process.env,
      ...extraEnv,
      SATURATE_NVML_LIB: kit.withConfig({ gpus: 8, procs: 2 }),
      SATURATE_MEM_PROBE: probe,
      SATURATE_MEM_PROBE_TRIM_MS: String(Number(values['trim-after-s']) * 1000),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
try {
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before printing its URL`)));
  });
  const pid = child.pid ?? 0;
  const t0 = Date.now();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(10_000); // warm: startup compilation done
  const warm = readMem(pid, probe, t0);
  console.log(
    `env ${JSON.stringify(extraEnv)} node args ${JSON.stringify(values['node-arg'])}\nwarm   ${describe(warm)}`,
  );
  let peak = warm;
  const sampler = setInterval(() => {
    const r = readMem(pid, probe, t0);
    if (r.rss > peak.rss) peak = r;
  }, 250);
  const churners = spawn(
    process.execPath,
    [fileURLToPath(new URL('./server-churn.ts', import.meta.url)), base, token, '500', values['churn-s']],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let counts = '';
  churners.stdout.on('data', (d: Buffer) => (counts += d.toString()));
  await new Promise<void>((resolve) => churners.on('exit', () => resolve()));
  clearInterval(sampler);
  console.log(`churn  ${counts}\npeak   ${describe(peak)}`);
  const ended = Date.now();
  if (values['gc-after'] || Number(values['trim-after-s']) > 0) child.kill('SIGUSR2');
  const settleS = Number(values['settle-s']);
  let last = warm;
  for (let s = 0; s <= settleS; s += 1) {
    await sleep(Math.max(0, ended + s * 1000 - Date.now()));
    last = readMem(pid, probe, t0);
    if (s % 5 === 0) console.log(`+${String(s).padStart(3)} s ${describe(last)}`);
  }
  console.log(`end    ${describe(last)}`);
} finally {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  kit.dispose();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
