/**
 * Memory under a hostile Prometheus (issue #29), before and after the hardening:
 * `node bench/hostile-memory.ts [--before DIR] [--observe-s 30]`. DIR is a checkout of the old code with its
 * node_modules (e.g. `git archive main | tar -x -C DIR`); without it only this checkout is measured. Not a test:
 * it prints numbers. Runs against the fake of test/fleet/hostile-prometheus.ts on 127.0.0.1:
 * - `npm run audit` against 200 MB answers and against 100,000-series answers: peak RSS (`/usr/bin/time`),
 *   seconds, exit code and the last line it printed;
 * - the lab server (`--source prometheus:`, read every 2 s so refreshes would overlap the 30 s timeout):
 *   started on a healthy fleet that then answers 200 MB, watched for `--observe-s`; and started on
 *   100,000-series answers. Peak RSS from /proc/<pid>/status (VmHWM), polled.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUSY, fakeGpu, startHostilePrometheus, type HostilePrometheus } from '../test/fleet/hostile-prometheus.ts';

const here = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: { before: { type: 'string' }, 'observe-s': { type: 'string', default: '30' } },
});
const observeMs = Number(values['observe-s']) * 1000;
const config = mkdtempSync(join(tmpdir(), 'saturate-hostile-bench-'));

interface Run {
  peakMb: number;
  seconds: number;
  code: number | string;
  said: string;
}

const lastLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => l.trim())
    .at(-1)
    ?.slice(0, 110) ?? '';

/** `npm run audit` in `dir` under /usr/bin/time, killed after 120 s. */
function auditRun(dir: string, url: string): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      '/usr/bin/time',
      ['-f', 'MAXRSS %M', process.execPath, 'scripts/audit.ts', '--prometheus', url],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const kb = Number(/MAXRSS (\d+)/.exec(err)?.[1] ?? 0);
      resolve({
        peakMb: Math.round(kb / 1024),
        seconds: Math.round((performance.now() - t0) / 100) / 10,
        code: code ?? String(signal),
        said: lastLine(err.replace(/MAXRSS \d+/, '').replace(/\n\nUsage:[\s\S]*/, '')),
      });
    });
  });
}

const vmHwmMb = (pid: number): number => {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
};

/**
 * The lab server in `dir` reading `fake`; `then` runs once it listens (or at once when `waitListen` is false),
 * and it is watched until `observeMs` after that, or its exit.
 */
function labRun(dir: string, fake: HostilePrometheus, waitListen: boolean, then: () => void): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ['server/bin.mjs', '--port', '0', '--source', `prometheus:${fake.url}`, '--interval', '2000'],
      { cwd: dir, env: { ...process.env, XDG_CONFIG_HOME: config }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, vmHwmMb(child.pid!))), 200);
    let stopAt: ReturnType<typeof setTimeout> | null = null;
    const watch = () => {
      then();
      stopAt ??= setTimeout(() => child.kill('SIGKILL'), observeMs);
    };
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (waitListen && out.includes('Saturate lab server on')) watch();
    });
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    if (!waitListen) watch();
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      if (stopAt) clearTimeout(stopAt);
      const listening = out.includes('Saturate lab server on');
      resolve({
        peakMb: peak,
        seconds: Math.round((performance.now() - t0) / 100) / 10,
        code:
          signal === 'SIGKILL' ? (listening ? 'ran (stopped)' : 'not listening (killed)') : (code ?? String(signal)),
        said: lastLine(out.replace(/\?token=\S+/, '?token=…')),
      });
    });
  });
}

const fake = await startHostilePrometheus('fleet', [fakeGpu(0, BUSY), fakeGpu(1, BUSY)]);
const dirs: [string, string][] = [
  ...(values.before ? [['before', values.before] as [string, string]] : []),
  ['after', here],
];
const rows: string[] = [];
const row = (what: string, which: string, r: Run) =>
  rows.push(`| ${what} | ${which} | ${r.peakMb} | ${r.seconds} | ${r.code} | ${r.said.replace(/\|/g, '\\|')} |`);

try {
  for (const [which, dir] of dirs) {
    fake.mode = 'huge-body';
    row('audit, 200 MB answers', which, await auditRun(dir, fake.url));
    fake.mode = 'many-series';
    fake.seriesCount = 100_000;
    row('audit, 100,000 series', which, await auditRun(dir, fake.url));
    fake.mode = 'fleet';
    row(
      `lab server, healthy then 200 MB answers (${observeMs / 1000} s)`,
      which,
      await labRun(dir, fake, true, () => (fake.mode = 'huge-body')),
    );
    fake.mode = 'many-series';
    row(
      `lab server, 100,000 series from the start (${observeMs / 1000} s)`,
      which,
      await labRun(dir, fake, false, () => {}),
    );
    console.error(`${which}: done`);
  }
} finally {
  await fake.close();
  rmSync(config, { recursive: true, force: true });
}

console.log('| attack | code | peak RSS (MB) | seconds | exit | last line |');
console.log('|---|---|---:|---:|---|---|');
for (const r of rows) console.log(r);
