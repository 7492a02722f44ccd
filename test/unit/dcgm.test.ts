import { describe, expect, test } from 'vitest';
import { dcgmExposition, dcgmValues } from '../../src/protocol/dcgm.ts';
import { sampleAt } from '../../src/lib/sim/index.ts';

describe("dcgm-exporter's names and units", () => {
  const gpu = sampleAt('memory-bound', 20_000, 'dcgm').gpus[0]!;

  test('ratios are 0–1, utilization %, framebuffer MiB, and free + used = total', () => {
    const v = dcgmValues(gpu, 1234);
    expect(v.get('DCGM_FI_DEV_GPU_UTIL')).toBe(gpu.gpuUtilPct);
    expect(v.get('DCGM_FI_PROF_DRAM_ACTIVE')).toBeCloseTo(gpu.dramActivePct! / 100, 9);
    expect(v.get('DCGM_FI_DEV_FB_USED')! * 1024 * 1024).toBeCloseTo(gpu.memUsedBytes!, 0);
    expect((v.get('DCGM_FI_DEV_FB_USED')! + v.get('DCGM_FI_DEV_FB_FREE')!) * 1024 * 1024).toBeCloseTo(
      gpu.memTotalBytes!,
      0,
    );
    expect(v.get('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION')).toBe(1234);
  });

  test('a reading the GPU does not give writes no line (never a fake 0)', () => {
    const noGpm = { ...gpu, smActivePct: null, tensorActivePct: null, dramActivePct: null, smOccupancyPct: null };
    const text = dcgmExposition([noGpm], 'node-1', [null]);
    expect(text).not.toContain('DCGM_FI_PROF_SM_ACTIVE');
    expect(text).not.toContain('DCGM_FI_PROF_GR_ENGINE_ACTIVE');
    expect(text).not.toContain('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION');
    expect(text).toContain('DCGM_FI_DEV_GPU_UTIL{');
  });

  test("lines carry dcgm-exporter's labels, escaped, plus the caller's (simulated)", () => {
    const text = dcgmExposition([{ ...gpu, name: 'NVIDIA "H100"' }], 'node-1', [5], { simulated: 'true' });
    expect(text).toMatch(
      /^DCGM_FI_DEV_GPU_UTIL\{gpu="0",UUID="[^"]+",device="nvidia0",modelName="NVIDIA \\"H100\\"",hostname="node-1",simulated="true"\} \d/m,
    );
    expect(text).toContain('# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter');
  });

  test('a lost GPU writes nothing', () => {
    expect(dcgmExposition([{ ...gpu, error: 'GPU is lost (NVML 15)' }], 'node-1', [5])).toBe('');
  });
});
