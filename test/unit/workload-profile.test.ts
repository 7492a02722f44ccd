/**
 * The lab workloads' `--profile DIR` (workloads/_common.py), checked without PyTorch or a GPU: the argument, the
 * trace's file name, the schedule, that every PyTorch workload marks its steps, and that every script compiles.
 * Recording a trace needs torch and a GPU: `npm run check:gpu-labs` does that where one is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const WORKLOADS = join(process.cwd(), 'workloads');

/** Runs Python with workloads/ importable (no torch needed for _common's own helpers). */
function py(code: string, args: string[] = []) {
  const r = spawnSync('python3', ['-B', '-c', code, ...args], {
    cwd: WORKLOADS,
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

const scripts = readdirSync(WORKLOADS).filter((f) => f.endsWith('.py') && f !== '_common.py');

// Python starts in 2 s on a loaded 2-core machine: each test gets a minute.
describe('workloads --profile DIR', { timeout: 60_000 }, () => {
  test('every workload script compiles', { timeout: 60_000 }, () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pyc-')), 'x.pyc');
    const r = py(
      'import py_compile, sys\nfor f in sys.argv[2:]: py_compile.compile(f, cfile=sys.argv[1], doraise=True)',
      [out, ...[...scripts, '_common.py'].map((f) => join(WORKLOADS, f))],
    );
    expect(r.code, r.err).toBe(0);
  });

  test('is an option of every workload: a folder, none by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-'));
    const r = py(
      'import sys, _common; p = _common.parser("t"); print(p.parse_args([]).profile); print(p.parse_args(["--profile", sys.argv[1] + "/new"]).profile)',
      [dir],
    );
    expect(r.err).toBe('');
    expect(r.out.split('\n')).toEqual(['None', `${dir}/new`]);
  });

  test('refuses a file with a message saying it wants a folder', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'profile-')), 'a.json');
    writeFileSync(file, '{}');
    const r = py('import sys, _common; _common.parser("t").parse_args(["--profile", sys.argv[1]])', [file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--profile wants a folder for the trace, and .*a\.json is a file/);
  });

  test('names the trace DIR/<label>.pt.trace.json.gz, the name the trace page and CLI read', () => {
    const r = py(
      'import _common; from pathlib import Path; print(_common.trace_path(Path("/t"), "small-batch-bs1-eager")); print(_common.trace_path(Path("/t"), "a b/../c")); print(_common.trace_path(Path("/t"), "///"))',
    );
    expect(r.out.split('\n')).toEqual([
      '/t/small-batch-bs1-eager.pt.trace.json.gz',
      '/t/a-b-..-c.pt.trace.json.gz',
      '/t/run.pt.trace.json.gz',
    ]);
  });

  test('records with a wait / warmup / active schedule, 11 steps in all; without DIR it needs no torch', () => {
    const r = py(
      'import _common; s = _common.PROFILE_SCHEDULE; print(s["wait"], s["warmup"], s["active"], s["repeat"], _common.PROFILED_STEPS)\nwith _common.step_profiler(None, "x") as p: p.step()\nprint("no-op")',
    );
    expect(r.err).toBe('');
    expect(r.out.split('\n')).toEqual(['1 2 3 1 11', 'no-op']);
  });

  test('every PyTorch workload marks each step of its loop for the profiler', () => {
    expect(scripts.length).toBeGreaterThanOrEqual(7);
    for (const f of scripts) {
      const src = readFileSync(join(WORKLOADS, f), 'utf8');
      expect(src, f).toMatch(/with step_profiler\(args\.profile, [^)]+\) as prof:/);
      expect(src, f).toMatch(/^\s+prof\.step\(\)$/m);
    }
  });
});
