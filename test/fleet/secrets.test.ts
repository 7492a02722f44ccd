/**
 * Secrets never printed: every failure path of `npm run audit` and of the lab server's Prometheus source runs
 * as its own process with a known secret, and all it writes (stdout and stderr, stack traces included) is
 * searched for the secret and for the Authorization header made from it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from './prometheus-harness.ts';
import {
  BUSY,
  fakeGpu,
  startHostilePrometheus,
  type HostileMode,
  type HostilePrometheus,
} from './hostile-prometheus.ts';

const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'Sup3r-Secret-7f3a9c';
const FORMS = [SECRET, Buffer.from(`ops:${SECRET}`).toString('base64'), encodeURIComponent(SECRET)];

let fake: HostilePrometheus;
let dir: string;
let closedPort: number;

beforeAll(async () => {
  fake = await startHostilePrometheus('fleet', [fakeGpu(0, BUSY)]);
  dir = mkdtempSync(join(tmpdir(), 'saturate-secrets-'));
  closedPort = await freePort();
});
afterAll(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, content: string): string => {
  const p = join(dir, name);
  writeFileSync(p, content, { mode: 0o600 });
  return p;
};

/** Runs `args` with node to its exit (killed after 20 s); resolves with the code and everything it wrote. */
function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, XDG_CONFIG_HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Each failure: how the credential is given (flags), what the fake does, the exit code expected. */
const cases: { name: string; mode: HostileMode; flags: () => string[]; url?: () => string; code: number }[] = [
  {
    name: 'a token file with a line break inside',
    mode: 'fleet',
    flags: () => ['--prometheus-token-file', file('token-nl', `abc\n${SECRET}\n`)],
    code: 1,
  },
  {
    name: 'a token file with a control character inside',
    mode: 'fleet',
    flags: () => ['--prometheus-token-file', file('token-tab', `${SECRET}\tx`)],
    code: 1,
  },
  {
    name: 'a basic-auth file with a line break inside',
    mode: 'fleet',
    flags: () => ['--prometheus-basic-auth-file', file('auth-nl', `ops:${SECRET}\nsecond line`)],
    code: 1,
  },
  {
    name: 'a URL with user:password that does not parse',
    mode: 'fleet',
    flags: () => [],
    url: () => `http://ops:${SECRET}@prometheus host:9090`,
    code: 1,
  },
  {
    name: 'a URL with user:password, nothing listening',
    mode: 'fleet',
    flags: () => [],
    url: () => `http://ops:${SECRET}@127.0.0.1:${closedPort}`,
    code: 2,
  },
  {
    name: 'a Prometheus that refuses the token (401)',
    mode: 'unauthorized',
    flags: () => ['--prometheus-token-file', file('token-ok', `${SECRET}\n`)],
    code: 2,
  },
  {
    name: 'a Prometheus that repeats the Authorization header in its error',
    mode: 'echo-auth',
    flags: () => ['--prometheus-basic-auth-file', file('auth-ok', `ops:${SECRET}\n`)],
    code: 2,
  },
  {
    name: 'a Prometheus that stalls mid-answer',
    mode: 'stall-mid-body',
    flags: () => ['--prometheus-token-file', file('token-ok', `${SECRET}\n`), '--query-timeout', '2'],
    code: 4,
  },
];

const leaks = (output: string) => FORMS.filter((f) => output.includes(f));

describe('npm run audit never prints a secret', () => {
  test.each(cases)('$name', async (c) => {
    fake.mode = c.mode;
    const url = c.url?.() ?? fake.url;
    const r = await run(['scripts/audit.ts', '--prometheus', url, '--window', '1h', ...c.flags()]);
    expect(leaks(r.output), r.output).toEqual([]);
    expect(r.code, r.output).toBe(c.code);
    expect(r.output).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});

describe('the lab server never prints a secret at startup', () => {
  test.each(cases.filter((c) => c.mode !== 'stall-mid-body'))('$name', async (c) => {
    fake.mode = c.mode;
    const url = c.url?.() ?? fake.url;
    const r = await run(['server/bin.mjs', '--port', '0', '--source', `prometheus:${url}`, ...c.flags()]);
    expect(leaks(r.output), r.output).toEqual([]);
    expect(r.code, r.output).not.toBe(0);
    expect(r.code, r.output).not.toBeNull(); // it stopped by itself, with a message
  });
});
