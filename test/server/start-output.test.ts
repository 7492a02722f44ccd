/**
 * What `npm start` says in a terminal: on a Node too old for TypeScript, what to install instead of a stack trace;
 * a build kept to two lines; the no-driver reason wrapped; the URL last.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { nodeTooOld } from '../../scripts/node-version.mjs';
import { quietBuild, FAILED_LOG_LINES } from '../../scripts/site-build.ts';
import { terminalReason, wrapText } from '../../server/terminal.ts';

const root = new URL('../../', import.meta.url).pathname;
const configHome = mkdtempSync(join(tmpdir(), 'start-output-'));
afterAll(() => rmSync(configHome, { recursive: true, force: true }));

describe('npm start and npm install on an old Node', () => {
  test('start.mjs on Node 20 says it needs Node 22.12 and how to get it, not ERR_UNKNOWN_FILE_EXTENSION', () => {
    const r = spawnSync(process.execPath, ['scripts/start.mjs', '--port', '0'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, XDG_CONFIG_HOME: configHome, SATURATE_NODE_VERSION: '20.19.0' },
      timeout: 15_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Saturate needs Node 22.12 or newer; this is Node 20.19.0.');
    expect(r.stderr).toMatch(/nvm install 24/);
    expect(r.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });

  test('a real Node older than 22.12, where the machine has one, gets the same message', () => {
    // Debian's /usr/bin/node is 20 on the machines this was written on; elsewhere the check is on the rule itself.
    const old = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const version = old.status === 0 ? old.stdout.trim() : null;
    if (version !== null && nodeTooOld(version)) {
      const r = spawnSync('/usr/bin/node', ['scripts/start.mjs'], { cwd: root, encoding: 'utf8', timeout: 15_000 });
      expect(r.stderr).toContain('Saturate needs Node 22.12 or newer');
      expect(r.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      expect(r.status).toBe(1);
    }
    expect([nodeTooOld('v20.19.0'), nodeTooOld('22.11.0'), nodeTooOld('22.12.0'), nodeTooOld('24.1.0')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  test("npm install's preinstall step stops on an old Node with the same message", () => {
    const r = spawnSync('npm', ['run', '--silent', 'preinstall'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, SATURATE_NODE_VERSION: '18.20.0' },
      timeout: 30_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Saturate needs Node 22.12 or newer; this is Node 18.20.0.');
  });
});

describe('the build and the URL', () => {
  test('a build of 140 log lines prints two; a failed one prints its last lines and says it failed', () => {
    const said: string[] = [];
    const noisy = 'for (let i = 0; i < 140; i++) console.log("vite line " + i);';
    const ok = quietBuild(process.execPath, ['-e', noisy], { cwd: root, env: process.env, say: (l) => said.push(l) });
    expect(ok.ok).toBe(true);
    expect(said).toHaveLength(2);
    expect(said[1]).toMatch(/^Built the site in \d+ s\.$/);
    said.length = 0;
    const failing = `${noisy} console.error("[ERROR] content/cards/x.md: bad field"); process.exit(1);`;
    const bad = quietBuild(process.execPath, ['-e', failing], {
      cwd: root,
      env: process.env,
      say: (l) => said.push(l),
    });
    expect(bad.ok).toBe(false);
    const shown = said.join('\n');
    expect(shown).toContain('[ERROR] content/cards/x.md: bad field');
    expect(shown.split('\n').length).toBeLessThanOrEqual(FAILED_LOG_LINES + 2);
    expect(said.at(-1)).toMatch(/build failed/);
  });

  test('the lab server prints its notes wrapped to 100 columns and its URL on the last line', async () => {
    const child = spawn(process.execPath, ['server/bin.mjs', '--port', '0', '--source', 'auto'], {
      cwd: root,
      env: { ...process.env, XDG_CONFIG_HOME: configHome },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => out.includes('Saturate lab server on') && resolve());
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
    } finally {
      child.kill('SIGTERM');
    }
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^Saturate lab server on http:\/\/127\.0\.0\.1:\d+\/\?token=\w+ \(source: /);
    // Without a driver (most test machines) it simulates and says why; on a GPU it reads the GPU.
    if (lines.at(-1)!.includes(', simulated)')) expect(out).toContain('Simulated GPU: ');
    for (const l of lines.slice(0, -1)) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  test("the no-driver reason loses dlopen's list of tried files and keeps what to do", () => {
    const reason =
      'NVML library not found (NVML 12) in dlopen (libnvidia-ml.so.1: Failed to load shared library: cannot open shared object file: No such file or directory; libnvidia-ml.so: Failed to load shared library: cannot open shared object file: No such file or directory). No NVIDIA driver library on this machine: install the NVIDIA driver, or set SATURATE_NVML_LIB to the path of libnvidia-ml.so.1. Simulated "idle" data shown instead.';
    const short = terminalReason(reason);
    expect(short).toBe(
      'NVML library not found (NVML 12) in dlopen. No NVIDIA driver library on this machine: install the NVIDIA driver, or set SATURATE_NVML_LIB to the path of libnvidia-ml.so.1. Simulated "idle" data shown instead.',
    );
    expect(
      wrapText(short, 100, '  ')
        .split('\n')
        .every((l) => l.length <= 100 && l.startsWith('  ')),
    ).toBe(true);
  });
});
