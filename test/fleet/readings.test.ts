/**
 * server/fleet/readings.ts: one parser per series type. Properties over random values and random fleets that
 * mix good GPUs with GPUs sending every hostile kind of value: DCGM blank sentinels (32-bit, 64-bit, float,
 * each "blank", "not found", "not supported", "not permissioned"), NaN, ±Inf, masks outside 0…2^32 − 1 and
 * values outside their range.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { audit } from '../../server/fleet/audit.ts';
import { DIAGNOSED_NAMES } from '../../server/fleet/collect.ts';
import {
  DCGM_FP64_BLANK,
  DCGM_INT32_BLANK,
  readClockEventMask,
  readDcgm,
  readEnergyIncrease,
  SERIES_TYPES,
} from '../../server/fleet/readings.ts';
import { BUSY, fakeClient, fakeGpu, IDLE } from './hostile-prometheus.ts';

const NAMES = Object.keys(SERIES_TYPES);
const INT64_BLANKS = ['9223372036854775792', '9223372036854775794', '9223372036854775808'].map(Number);
const anyValue = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(NaN, Infinity, -Infinity, -1, 2 ** 32, 1.5, ...INT64_BLANKS),
  fc.integer({ min: 0, max: 3 }).map((k) => DCGM_INT32_BLANK + k),
  fc.integer({ min: 0, max: 3 }).map((k) => DCGM_FP64_BLANK + k),
);

describe('readDcgm', () => {
  test('never throws; a value it keeps is finite, and NaN or ±Inf is never kept', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), anyValue, (name, v) => {
        const r = readDcgm(name, v);
        if (r.value === null) expect(r.reason).toMatch(new RegExp(name));
        else expect(Number.isFinite(r.value)).toBe(true);
        if (!Number.isFinite(v)) expect(r).toMatchObject({ value: null, corrupt: true });
      }),
    );
  });

  test('every documented DCGM blank is no reading with what DCGM meant, not a corrupt value', () => {
    const meanings = ['blank', '"not found"', '"not supported"', '"not permissioned"'];
    for (const [name, t] of Object.entries(SERIES_TYPES)) {
      for (const v of INT64_BLANKS) expect(readDcgm(name, v)).toMatchObject({ value: null, corrupt: false });
      meanings.forEach((meaning, k) => {
        if (t.dcgm === 'fp64') {
          const r = readDcgm(name, DCGM_FP64_BLANK + k);
          expect(r, name).toMatchObject({ value: null, corrupt: false });
          expect(r.reason).toContain(meaning);
        } else if (t.quantity !== 'bytesPerSec' && t.quantity !== 'mj') {
          const r = readDcgm(name, DCGM_INT32_BLANK + k);
          expect(r, name).toMatchObject({ value: null, corrupt: false });
          expect(r.reason).toContain(`0x${(DCGM_INT32_BLANK + k).toString(16)}`);
          expect(r.reason).toContain(meaning);
        }
      });
    }
  });

  test('ratios and percentages outside their range are corrupt; a rounding hair over is clamped', () => {
    expect(readDcgm('DCGM_FI_PROF_SM_ACTIVE', 5)).toMatchObject({ value: null, corrupt: true });
    expect(readDcgm('DCGM_FI_DEV_GPU_UTIL', -3)).toMatchObject({ value: null, corrupt: true });
    expect(readDcgm('DCGM_FI_PROF_SM_ACTIVE', 1.000001).value).toBe(1);
  });
});

describe('readClockEventMask', () => {
  test('any number: the reasons of a mask from 0 to 2^32 − 1, else no reading; never a throw', () => {
    fc.assert(
      fc.property(anyValue, (v) => {
        const r = readClockEventMask(v);
        const valid = Number.isInteger(v) && v >= 0 && v < DCGM_INT32_BLANK;
        const wide = Number.isInteger(v) && v >= 2 ** 31 && v < 2 ** 32;
        if (valid || wide) expect(r.reasons).not.toBeNull();
        else expect(r.reasons).toBeNull();
      }),
    );
  });
});

describe('readEnergyIncrease', () => {
  test('NaN, Inf, negative and more than 10 kW on average are no reading', () => {
    for (const v of [NaN, Infinity, -1, 3600 * 10_000 * 1000 + 1]) expect(readEnergyIncrease(v, 3600).value).toBeNull();
    expect(readEnergyIncrease(3600 * 700 * 1000, 3600).value).toBe(3600 * 700 * 1000);
  });
});

/**
 * The series the fleet reads for a GPU's verdict (energy comes from its own query; the live view leaves out what no
 * verdict reads, DIAGNOSED_NAMES: XID, GR engine, occupancy, free memory; the mask's name before dcgm-exporter 4.0
 * goes unread beside the 4.x one these GPUs send).
 */
const READ = NAMES.filter((n) => DIAGNOSED_NAMES.includes(n) && n !== 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS');

/** A hostile value for a series: [series, value, corrupt?]. */
const spoil = fc.oneof(
  fc.constantFrom<[string, number | string, boolean]>(
    ['DCGM_FI_DEV_CLOCKS_EVENT_REASONS', -1, true],
    ['DCGM_FI_DEV_CLOCKS_EVENT_REASONS', 2 ** 32, true],
    ['DCGM_FI_DEV_CLOCKS_EVENT_REASONS', 1.5, true],
    ['DCGM_FI_DEV_CLOCKS_EVENT_REASONS', DCGM_INT32_BLANK, false],
    ['DCGM_FI_PROF_SM_ACTIVE', 5, true],
    ['DCGM_FI_DEV_GPU_UTIL', -3, true],
  ),
  fc.tuple(fc.constantFrom(...READ), fc.constantFrom('NaN', '+Inf', '-Inf')).map(([n, v]) => [n, v, true] as const),
  fc.tuple(fc.constantFrom(...READ), fc.constantFrom(...INT64_BLANKS)).map(([n, v]) => [n, v, false] as const),
  fc
    .tuple(fc.constantFrom(...READ.filter((n) => SERIES_TYPES[n]!.dcgm === 'fp64')), fc.integer({ min: 0, max: 3 }))
    .map(([n, k]) => [n, DCGM_FP64_BLANK + k, false] as const),
);

describe('a random fleet with hostile GPUs', () => {
  test('never throws; every good GPU keeps the verdict it has without them; a corrupt one is "can\'t tell"', async () => {
    const endS = 1_764_547_200;
    const run = (gpus: ReturnType<typeof fakeGpu>[]) =>
      audit(fakeClient(gpus), { windowS: 3600, endS, pricePerGpuHour: null });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ busy: fc.boolean(), spoiled: fc.option(spoil, { nil: null }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (plan) => {
          const gpus = plan.map((p, i) => {
            const values: Record<string, number | string> = { ...(p.busy ? BUSY : IDLE) };
            if (p.spoiled) values[p.spoiled[0]] = p.spoiled[1];
            return fakeGpu(i, values);
          });
          const report = await run(gpus);
          const good = gpus.filter((_, i) => !plan[i]!.spoiled);
          const alone = await run(good);
          const kindOf = (r: typeof report, uuid: string | undefined) =>
            r.gpus.find((g) => g.uuid === uuid)?.verdict.kind;
          for (const g of good) expect(kindOf(report, g.labels['UUID'])).toBe(kindOf(alone, g.labels['UUID']));
          plan.forEach((p, i) => {
            if (!p.spoiled?.[2]) return;
            const verdict = report.gpus.find((g) => g.uuid === gpus[i]!.labels['UUID'])?.verdict;
            expect(verdict?.kind).toBe('cant-tell');
            expect(verdict?.evidence.join(' ')).toContain(p.spoiled[0]);
          });
          expect(Number.isNaN(report.summary.energyKWh)).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });
});
