/** The fleet page's first look at a young Prometheus, and how a simulated or someone else's GPU is shown in a lab. */
import { describe, expect, test } from 'vitest';
import { dataSpanText, liveViewPath, windowWithData } from '../../src/lib/fleet-view.ts';
import { isWatchOnly } from '../../src/lib/lab/connection.ts';
import { sourceBanner } from '../../src/islands/LabConnect.tsx';
import type { SourceInfo } from '../../src/lib/lab/session.ts';

const OFFERED = { '1h': 3600, '24h': 86_400, '7d': 604_800 };

describe('how much data Prometheus has', () => {
  test('in words a newcomer reads: under a minute, minutes, hours, days, or none yet', () => {
    expect([null, 0, 40, 120, 5400, 7200, 3 * 86_400].map(dataSpanText)).toEqual([
      'Prometheus has no GPU data in this window yet',
      'Prometheus has under a minute of data', // one scrape so far
      'Prometheus has under a minute of data',
      'Prometheus has 2 minutes of data',
      'Prometheus has 2 hours of data',
      'Prometheus has 2 hours of data',
      'Prometheus has 3 days of data',
    ]);
  });

  test('a window the data fills: 2 minutes in the 24 h default → 1 h; 20 h of 24 → kept; 2 days in 7 d → 24 h', () => {
    expect(windowWithData(120, 86_400, OFFERED)).toBe('1h');
    expect(windowWithData(20 * 3600, 86_400, OFFERED)).toBeNull();
    expect(windowWithData(2 * 86_400, 604_800, OFFERED)).toBeNull(); // 2 of 7 days is over a quarter
    expect(windowWithData(3600 * 5, 604_800, OFFERED)).toBe('24h');
    expect(windowWithData(3700, 86_400, OFFERED)).toBe('1h'); // a bit over an hour: the hour it fills
    expect(windowWithData(30 * 3600, 604_800, OFFERED)).toBe('24h');
    expect(windowWithData(120, 3600, OFFERED)).toBeNull(); // nothing shorter is offered
  });
});

describe('a fleet GPU in the lab console', () => {
  const fleet = (simulated: boolean): SourceInfo =>
    ({
      kind: 'server',
      source: 'prometheus:http://127.0.0.1:9090',
      simulated: false,
      reason: null,
      origin: 'http://127.0.0.1:8790',
      control: 'none',
      devices: [
        {
          index: 0,
          name: 'NVIDIA H100 80GB HBM3 (demo-idle, GPU 0)',
          uuid: 'GPU-0',
          memTotalBytes: null,
          smClockMaxMhz: null,
          memClockMaxMhz: null,
          gpmSupported: false,
          ...(simulated ? { simulated: true } : {}),
        },
      ],
    }) satisfies SourceInfo;

  test('is tagged SIMULATED when its series carry simulated="true", REAL otherwise', () => {
    expect(sourceBanner(fleet(true), 0).tag).toBe('SIMULATED');
    expect(sourceBanner(fleet(true), 0).text).toContain('simulated="true"');
    expect(sourceBanner(fleet(false), 0).tag).toBe('REAL');
  });

  test("is someone else's job: watch only; a lab server's own GPU or simulation is not", () => {
    expect(isWatchOnly(fleet(true))).toBe(true);
    expect(isWatchOnly({ kind: 'server', source: 'sim:idle' })).toBe(false);
    expect(isWatchOnly({ kind: 'server', source: 'nvml' })).toBe(false);
    expect(isWatchOnly(null)).toBe(false);
  });

  test('its live view opens at the charts', () => {
    expect(liveViewPath({ model: 'H100', hostname: 'n1', gpu: 3, verdict: { kind: 'idle' } })).toMatch(
      /^\/labs\/idle-gpu-cost\/\?gpu=[^#]+#lab-charts$/,
    );
  });
});
