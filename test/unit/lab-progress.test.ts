import { describe, expect, test } from 'vitest';
import { parseSavedRun, resumeRun, savedRunOf, serializeSavedRun } from '../../src/lib/lab/progress.ts';
import { bootOf, fillHostCores, retryAfterMs, retryDelayMs, simulatedSummary } from '../../src/lib/lab/connection.ts';

describe('saved lab progress', () => {
  test('round-trips the steps passed and their baselines', () => {
    const saved = savedRunOf(
      { index: 1, startedAtMs: 5, passedAtMs: [5], baselines: [{ samplesPerSec: 820, gpuUtilPct: null }] },
      2,
    );
    expect(saved).toEqual({ passed: 1, baselines: [{ samplesPerSec: 820, gpuUtilPct: null }] });
    expect(parseSavedRun(serializeSavedRun(saved!), 2)).toEqual(saved);
    expect(resumeRun(saved)).toEqual({ index: 1, startedAtMs: null, passedAtMs: [], baselines: saved!.baselines });
  });

  test('keeps nothing before the first pass or once the lab is done', () => {
    expect(savedRunOf({ index: 0, startedAtMs: null, passedAtMs: [], baselines: [] }, 2)).toBeNull();
    expect(savedRunOf({ index: 2, startedAtMs: 1, passedAtMs: [1, 2], baselines: [{}, {}] }, 2)).toBeNull();
  });

  test("anything malformed, from another version or past the lab's steps starts at step 1", () => {
    for (const text of [
      null,
      '',
      'not json',
      '{"v":2,"passed":1,"baselines":[{}]}',
      '{"v":1,"passed":2,"baselines":[{},{}]}', // the lab now has 2 steps: nothing to resume
      '{"v":1,"passed":1,"baselines":[]}',
      '{"v":1,"passed":1,"baselines":[{"gpuUtilPct":"high"}]}',
      '{"v":1,"passed":1.5,"baselines":[{}]}',
    ])
      expect(parseSavedRun(text, 2), String(text)).toBeNull();
    expect(resumeRun(null).index).toBe(0);
  });
});

describe('lab connection', () => {
  test('waits at least what Retry-After says, doubling from 1 s up to 30 s otherwise', () => {
    const now = Date.parse('2026-03-29T10:00:00Z');
    expect(retryAfterMs('5', now)).toBe(5000);
    expect(retryAfterMs('Sun, 29 Mar 2026 10:00:12 GMT', now)).toBe(12_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryDelayMs(0, '5', now)).toBe(5000);
    expect(retryDelayMs(0, null, now)).toBe(1000);
    expect(retryDelayMs(3, '5', now)).toBe(8000);
    expect(retryDelayMs(10, null, now)).toBe(30_000);
    expect(retryDelayMs(10, '120', now)).toBe(120_000);
  });

  test('tells which run of the server an event id comes from', () => {
    expect(bootOf('m1x2k3-42')).toBe('m1x2k3');
    expect(bootOf('42')).toBeNull();
  });

  test('sums up why the data is simulated in one line', () => {
    expect(
      simulatedSummary(
        'NVML library not found (NVML 12) in dlopen. No NVIDIA driver library on this machine: install the NVIDIA driver, or set SATURATE_NVML_LIB to the path of libnvidia-ml.so.1. Tried: libnvidia-ml.so.1: cannot open shared object file: No such file or directory. Simulated "training-healthy" data shown instead.',
        'sim:training-healthy',
      ),
    ).toBe('No NVIDIA driver found: showing a simulated GPU');
    expect(simulatedSummary('NVIDIA driver not loaded (NVML 9: Driver Not Loaded) in nvmlInit_v2.', 'sim:idle')).toBe(
      'No NVIDIA driver found: showing a simulated GPU',
    );
    expect(simulatedSummary('simulated scenario "idle"', 'sim:idle')).toBe('Simulated GPU');
    expect(simulatedSummary(null, 'replay:run.ndjson')).toBe('Replaying a recording');
  });

  test('names the host by its cores when the server reports them, neutrally otherwise', () => {
    const html = '<p>num_workers=8 on {hostCores}.</p>';
    expect(fillHostCores(html, 64)).toBe('<p>num_workers=8 on this 64-core host.</p>');
    expect(fillHostCores(html, null)).toBe('<p>num_workers=8 on this host.</p>');
  });
});
