/** A lab page served by its lab server: one line on what the server reads and why, and commands that name it. */
import { describe, expect, test } from 'vitest';
import { ownServerLine } from '../../src/lib/lab/connection.ts';
import { runCommand } from '../../src/lib/lab/command.ts';
import { labReducer, newLabSession } from '../../src/lib/lab/session.ts';

const ORIGIN = 'http://127.0.0.1:8790';

describe('ownServerLine', () => {
  test('no driver: it says so, and that it simulates', () => {
    const reason =
      'NVML library not found (NVML 12) in dlopen. No NVIDIA driver library on this machine: install the NVIDIA driver. Simulated "idle" data shown instead.';
    expect(ownServerLine({ source: 'sim:idle', simulated: true, reason }, ORIGIN)).toBe(
      'You are on your lab server (127.0.0.1:8790). It has no NVIDIA driver, so it simulates a GPU.',
    );
  });
  test('a real GPU, a replay, a simulation asked for with --source', () => {
    expect(ownServerLine({ source: 'nvml', simulated: false, reason: null }, ORIGIN)).toMatch(
      /reads this machine's NVIDIA GPU through NVML\.$/,
    );
    expect(ownServerLine({ source: 'replay:run.ndjson', simulated: true, reason: null }, ORIGIN)).toMatch(
      /replays a recording \(run\.ndjson\)\.$/,
    );
    expect(ownServerLine({ source: 'sim:data-starved', simulated: true, reason: null }, ORIGIN)).toMatch(
      /simulates a GPU \(sim:data-starved\), as it was started to\.$/,
    );
  });
});

describe('runCommand', () => {
  test("a workload's command names the connected lab server, so its throughput goes there", () => {
    expect(runCommand('python workloads/small_batch.py --batch-size 128', `${ORIGIN}/?token=abc`)).toBe(
      `python workloads/small_batch.py --batch-size 128 --url '${ORIGIN}/?token=abc'`,
    );
  });
  test('unchanged without a server, for other commands, or when it already has --url', () => {
    expect(runCommand('python workloads/a.py', null)).toBe('python workloads/a.py');
    expect(runCommand('nvidia-smi dmon -s u', `${ORIGIN}/?token=abc`)).toBe('nvidia-smi dmon -s u');
    expect(runCommand('python workloads/a.py --url x', `${ORIGIN}/?token=abc`)).toBe('python workloads/a.py --url x');
  });
});

describe('the session hears its own server', () => {
  test('the server is kept for the panel to name', () => {
    const lab = { id: 'x', steps: [], mfu: null } as unknown as Parameters<typeof labReducer>[0];
    const own = { origin: ORIGIN, source: 'sim:idle', simulated: true, reason: null };
    const s = labReducer(lab, newLabSession(), { type: 'own-server', server: own });
    expect(s.ownServer).toEqual(own);
  });
});
