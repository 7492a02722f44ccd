import { describe, expect, test } from 'vitest';
import { clockEventReasonFromSmi, clockEventReasonsFromMask, CLOCK_EVENT_REASONS } from '../../src/protocol/metrics.ts';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { procs, windowOf } from '../fixtures/messages.ts';

const GiB = 1024 ** 3;
const busyH100 = { gpuUtilPct: 99, powerLimitWatts: 700, smClockMaxMhz: 1980, memUsedBytes: 60 * GiB };

describe('clock event reasons', () => {
  test('every bit NVML defines has its nvidia-smi label, the HW power brake included', () => {
    expect(clockEventReasonsFromMask(0x80)).toEqual(['HwPowerBrakeSlowdown']);
    expect(clockEventReasonsFromMask(0x1ff)).toHaveLength(9);
    expect(clockEventReasonsFromMask(0x84 + 0x1000)).toEqual(['SwPowerCap', 'HwPowerBrakeSlowdown', 'Unknown(0x1000)']);
    expect(clockEventReasonFromSmi('HW Power Brake Slowdown')).toBe('HwPowerBrakeSlowdown');
    expect(clockEventReasonFromSmi('clocks_event_reasons.sw_thermal_slowdown')).toBe('SwThermalSlowdown');
    expect(new Set(CLOCK_EVENT_REASONS.map((r) => r.bit)).size).toBe(9);
    expect(() => clockEventReasonsFromMask(-1)).toThrow(/non-negative integer/);
  });

  test('decide throttling on their own, whatever GPU-Util reads, and the HW brake points at the power supply', () => {
    const d = diagnose(
      windowOf([{ gpuUtilPct: 55, smClockMhz: 700, clockEventReasons: ['HwSlowdown', 'HwPowerBrakeSlowdown'] }]),
    );
    expect(d.kind).toBe('throttled');
    expect(d.confidence).toBe('high');
    expect(d.next).toMatch(/PSU/);
    expect(d.next).toMatch(/management controller/);
  });

  test('a thermal reason with a cool die points at memory-junction heat', () => {
    const d = diagnose(windowOf([{ ...busyH100, temperatureC: 62, clockEventReasons: ['SwThermalSlowdown'] }]));
    expect(d.kind).toBe('throttled');
    expect(d.next).toMatch(/memory junction/);
  });

  test('the SW power cap at the limit under dense math is called expected, not a fault', () => {
    const d = diagnose(
      windowOf([{ ...busyH100, powerWatts: 698, tensorActivePct: 70, clockEventReasons: ['SwPowerCap'] }]),
    );
    expect(d.kind).toBe('throttled');
    expect(d.next).toMatch(/expected under dense math/);
  });

  test('one throttled GPU among GPUs whose reasons read clear is named as the one the others wait for', () => {
    const clear = { ...busyH100, clockEventReasons: [] as string[] };
    const hot = { ...busyH100, temperatureC: 91, clockEventReasons: ['HwThermalSlowdown'] };
    const d = diagnose(windowOf([clear, clear, hot, clear]));
    expect(d.kind).toBe('throttled');
    expect(d.gpus).toEqual([2]);
    expect(d.title).toMatch(/GPU 2 of 4/);
    expect(d.evidence.join(' ')).toMatch(/3 other GPUs report no limiting reason.*every rank waits for GPU 2/);
    // Reasons not read on the other GPUs: nothing is claimed about them.
    const alone = diagnose(windowOf([busyH100, busyH100, hot, busyH100]));
    expect(alone.kind).toBe('throttled');
    expect(alone.evidence.join(' ')).not.toMatch(/straggler/);
  });

  test('one sample of HW slowdown in 30 s is not throttling', () => {
    const d = diagnose(
      windowOf([
        {
          ...busyH100,
          smActivePct: 85,
          tensorActivePct: 60,
          clockEventReasons: (i) => (i === 3 ? ['HwSlowdown'] : []),
        },
      ]),
    );
    expect(d.kind).toBe('compute-bound');
  });

  test('a thermal limit in a fifth of the samples is not throttling, but the healthy verdict is then not certain', () => {
    const busy = (reason: string) => ({
      ...busyH100,
      smActivePct: 85,
      tensorActivePct: 60,
      clockEventReasons: (i: number) => (i % 5 === 0 ? [reason] : []),
    });
    const hot = diagnose(windowOf([busy('HwThermalSlowdown')]));
    expect(hot.kind).toBe('compute-bound');
    expect(hot.confidence).toBe('medium');
    expect(hot.evidence.join(' ')).toMatch(
      /HwThermalSlowdown active in 2\d% of samples: under the 30% that counts as throttled/,
    );
    // The power limit doing its job now and then says nothing against the work.
    const capped = diagnose(windowOf([busy('SwPowerCap')]));
    expect(capped.kind).toBe('compute-bound');
    expect(capped.confidence).toBe('high');
  });
});

describe('a throttled verdict is as sure as the samples that show it', () => {
  // A fleet's live view (server/fleet/audit.ts): 300 s at a 25 s step, 13 points, judged over the 300 s.
  const capped = (seen: number) =>
    diagnose(
      windowOf(
        [
          {
            ...busyH100,
            smActivePct: 85,
            tensorActivePct: 60,
            // A power limit not exported (as on dcgm-exporter hosts without DCGM_FI_DEV_POWER_MGMT_LIMIT).
            powerLimitWatts: null,
            powerWatts: 640,
            clockEventReasons: (i: number) => (i < seen ? ['SwPowerCap'] : []),
          },
        ],
        { n: 13, intervalS: 25 },
      ),
      300,
    );

  test('a power cap in 4 of 13 samples is throttling, at medium confidence', () => {
    const d = capped(4);
    expect(d.kind).toBe('throttled');
    expect(d.confidence).toBe('medium');
    expect(d.evidence.join(' ')).toMatch(/SwPowerCap \(31% of samples\)/);
  });

  test('in 5 of 13 samples, or in all of them, at high confidence', () => {
    expect(capped(5)).toMatchObject({ kind: 'throttled', confidence: 'high' });
    expect(capped(13)).toMatchObject({ kind: 'throttled', confidence: 'high' });
  });
});

describe('hangs need a sign of no progress, not low power', () => {
  test("100% GPU-Util at 15% of the power limit, nothing else: can't tell, and asks whether throughput advances", () => {
    const d = diagnose(windowOf([0, 1].map(() => ({ ...busyH100, gpuUtilPct: 100, powerWatts: 105 }))));
    expect(d.kind).toBe('cant-tell');
    expect(d.decide).toMatch(/^Throughput/);
  });

  test('the same with steps/s reported as 0 is a hang, with high confidence', () => {
    const d = diagnose(
      windowOf(
        [0, 1].map(() => ({ ...busyH100, gpuUtilPct: 100, powerWatts: 105 })),
        { throughput: { stepsPerSec: 0 } },
      ),
    );
    expect(d.kind).toBe('communication-hang');
    expect(d.confidence).toBe('high');
  });

  test('100% GPU-Util at 120 W with no process is not a hang: nothing runs', () => {
    const d = diagnose(windowOf([{ gpuUtilPct: 100, powerWatts: 120, powerLimitWatts: 700, processes: [] }]));
    expect(d.kind).toBe('idle');
    expect(d.next).toMatch(/reset/);
  });

  test('one GPU at 100% with SM and DRAM near 0 and no progress reading: not "small kernels" but a question', () => {
    const frozen = { ...busyH100, gpuUtilPct: 100, smActivePct: 1, dramActivePct: 0.2, processes: procs(1) };
    const d = diagnose(windowOf([frozen]));
    expect(d.kind).toBe('cant-tell');
    expect(d.decide).toMatch(/^Throughput/);
    expect(diagnose(windowOf([frozen], { throughput: { samplesPerSec: 90 } })).kind).toBe('small-kernels');
  });

  test('SM and DRAM activity near 0 on busy ranks with one rank stalled: a hang without any throughput feed', () => {
    const spin = { ...busyH100, gpuUtilPct: 100, smActivePct: 1, dramActivePct: 0.2, processes: procs(1) };
    const stalled = { gpuUtilPct: 0, memUsedBytes: 60 * GiB, processes: procs(1) };
    const d = diagnose(windowOf([spin, spin, stalled, spin]));
    expect(d.kind).toBe('communication-hang');
    expect(d.gpus).toEqual([0, 1, 3]);
  });
});

describe('small kernels, nulls and data waits', () => {
  test('low power alone never gives small kernels; low power while the loop advances does', () => {
    const g = { ...busyH100, gpuUtilPct: 97, powerWatts: 180 };
    expect(diagnose(windowOf([g])).kind).toBe('cant-tell');
    const d = diagnose(windowOf([g], { throughput: { samplesPerSec: 850 } }));
    expect(d.kind).toBe('small-kernels');
    expect(d.confidence).toBe('medium');
  });

  test('a null is not a zero: GPU-Util 0 with memory and processes unknown prints no "0.0 GiB" and says it cannot tell', () => {
    const d = diagnose(windowOf([{ gpuUtilPct: 0 }]));
    expect(d.kind).toBe('cant-tell');
    expect(d.evidence.join(' ')).not.toMatch(/0\.0 GiB|no process/);
  });

  test('near-zero GPU-Util while samples/s > 0 is not "nothing running"', () => {
    const d = diagnose(windowOf([{ gpuUtilPct: 1, memUsedBytes: 20 * GiB }], { throughput: { samplesPerSec: 40 } }));
    expect(d.kind).not.toMatch(/^idle/);
  });

  test('the data-wait fraction decides starvation without host CPU; a small one rules it out', () => {
    const starved = diagnose(
      windowOf([{ gpuUtilPct: (i) => (i % 3 ? 5 : 80) }], { throughput: { dataWaitFraction: 0.6 } }),
    );
    expect(starved.kind).toBe('data-starvation');
    expect(starved.confidence).toBe('high');
    const notData = diagnose(windowOf([{ gpuUtilPct: 40 }], { throughput: { dataWaitFraction: 0.02 } }));
    expect(notData.kind).toBe('cant-tell');
    expect(notData.cardId).toBe('host-device-syncs');
  });

  test('tensor and DRAM activity stand in when SM activity is missing', () => {
    expect(diagnose(windowOf([{ ...busyH100, tensorActivePct: 55, dramActivePct: 30 }])).kind).toBe('compute-bound');
    const mem = diagnose(windowOf([{ ...busyH100, tensorActivePct: 3, dramActivePct: 74 }]));
    expect(mem.kind).toBe('memory-bound');
    expect(mem.confidence).toBe('medium');
  });

  test('memory temperature is read where present and shown as evidence', () => {
    const d = diagnose(
      windowOf([{ ...busyH100, temperatureC: 70, memTemperatureC: 92, clockEventReasons: ['HwThermalSlowdown'] }]),
    );
    expect(d.evidence.join(' ')).toMatch(/memory temperature 92 °C/);
    expect(d.next).toMatch(/memory at 92 °C/);
  });
});
