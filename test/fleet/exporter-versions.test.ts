/**
 * A fleet that runs dcgm-exporter 3.x beside 4.x: the clock event mask is DCGM_FI_DEV_CLOCK_THROTTLE_REASONS
 * before 4.0 and DCGM_FI_DEV_CLOCKS_EVENT_REASONS from 4.0 (its 4.0.0 release, #437), the host label `Hostname`
 * before #655 and `hostname` after. Each GPU is read by whichever it sends, and a GPU that sends neither mask is
 * never called confidently healthy: throttling is not ruled out, and the report names the missing reading.
 */
import { describe, expect, test } from 'vitest';
import { audit } from '../../server/fleet/audit.ts';
import { BUSY, fakeClient, fakeGpu } from './hostile-prometheus.ts';

const SW_POWER_CAP = 0x4;
const { DCGM_FI_DEV_CLOCKS_EVENT_REASONS: _mask, ...BUSY_NO_MASK } = BUSY;

const run = (gpus: ReturnType<typeof fakeGpu>[]) =>
  audit(fakeClient(gpus), { windowS: 3600, endS: 1_800_000_000, pricePerGpuHour: null });

describe('every dcgm-exporter version', () => {
  test('a 3.x GPU power-capped under DCGM_FI_DEV_CLOCK_THROTTLE_REASONS is throttled, as a 4.x one is', async () => {
    const r = await run([
      fakeGpu(0, { ...BUSY_NO_MASK, DCGM_FI_DEV_CLOCK_THROTTLE_REASONS: SW_POWER_CAP }),
      fakeGpu(1, { ...BUSY_NO_MASK, DCGM_FI_DEV_CLOCKS_EVENT_REASONS: SW_POWER_CAP }),
    ]);
    expect(r.gpus.map((g) => g.verdict.kind)).toEqual(['throttled', 'throttled']);
    expect(r.gpus[0]!.verdict.evidence.join(' ')).toMatch(/SwPowerCap/);
  });

  test('a GPU sending both names is read by the 4.x one', async () => {
    const r = await run([fakeGpu(0, { ...BUSY, DCGM_FI_DEV_CLOCK_THROTTLE_REASONS: SW_POWER_CAP })]);
    expect(r.gpus[0]!.verdict.kind).toBe('compute-bound');
  });

  test('the host comes from Hostname (before #655) or hostname (after)', async () => {
    const newer = fakeGpu(1, BUSY, { hostname: 'gpu-new' });
    delete newer.labels['Hostname'];
    const r = await run([fakeGpu(0, BUSY, { Hostname: 'gpu-old' }), newer]);
    expect(r.gpus.map((g) => g.hostname).sort()).toEqual(['gpu-new', 'gpu-old']);
  });

  test('without either mask a busy GPU is not confidently healthy, and the evidence names the missing reading', async () => {
    const r = await run([fakeGpu(0, BUSY_NO_MASK), fakeGpu(1, BUSY)]);
    const [blind, seen] = r.gpus;
    expect(blind!.verdict.confidence).not.toBe('high');
    expect(blind!.verdict.evidence.join(' ')).toMatch(
      /throttling not ruled out: .*DCGM_FI_DEV_CLOCKS_EVENT_REASONS \(DCGM_FI_DEV_CLOCK_THROTTLE_REASONS before 4\.0\)/,
    );
    expect(blind!.verdict.decide).toMatch(/Clock event reasons/);
    expect(seen!.verdict).toMatchObject({ kind: 'compute-bound', confidence: 'high' }); // the mask reads 0: not throttled
  });
});
