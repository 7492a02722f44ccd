import { describe, expect, test } from 'vitest';
import { GPU_IDS, GPU_SPECS, ridgeFlopsPerByte } from '../../src/lib/gpu-specs.ts';
import { densePeakTflops } from '../../src/lib/lab/metrics.ts';
import { SIM_GPU } from '../../src/lib/sim/model.ts';
import { GPU_SOURCES } from '../../src/lib/gpu-table/sources.ts';

describe('GPU spec table', () => {
  test('dense peaks, bandwidth, memory, SMs and power match the fact base (gpu-facts 9.1–9.6)', () => {
    const h100 = GPU_SPECS['h100-sxm'];
    expect(h100.peakTflops.bf16).toBe(989.4);
    expect(h100.peakTflops.fp8).toBe(1978.9);
    expect(h100.peakTflops.tf32).toBe(494.7);
    expect(h100.peakTflops.fp64Tensor).toBe(66.9);
    expect([h100.smCount, h100.memGB, h100.memBandwidthGBps, h100.tdpWatts]).toEqual([132, 80, 3350, 700]);
    const h200 = GPU_SPECS.h200;
    expect([h200.peakTflops.bf16, h200.memGB, h200.memBandwidthGBps, h200.tdpWatts]).toEqual([989.4, 141, 4800, 700]);
    const a100 = GPU_SPECS['a100-sxm-80gb'];
    expect([a100.peakTflops.bf16, a100.peakTflops.tf32, a100.peakTflops.fp32, a100.peakTflops.fp64Tensor]).toEqual([
      312, 156, 19.5, 19.5,
    ]);
    expect([a100.smCount, a100.memBandwidthGBps, a100.tdpWatts]).toEqual([108, 2039, 400]);
    expect(GPU_SPECS['a100-sxm-40gb'].memBandwidthGBps).toBe(1555);
    expect(GPU_SPECS['h100-pcie'].peakTflops.bf16).toBe(756);
  });

  test('L4 numbers are the datasheet’s sparse figures halved, with no invented FP64 or SM count', () => {
    const l4 = GPU_SPECS.l4;
    expect([l4.peakTflops.bf16, l4.peakTflops.fp8, l4.memBandwidthGBps, l4.memGB, l4.tdpWatts]).toEqual([
      121, 242.5, 300, 24, 72,
    ]);
    expect(l4.peakTflops.fp64).toBeNull();
    expect(l4.smCount).toBeNull();
  });

  test('A100 has no FP8 Tensor Cores, so its FP8 peak is null rather than 0', () => {
    expect(GPU_SPECS['a100-sxm-80gb'].peakTflops.fp8).toBeNull();
  });

  test('every entry cites at least one https source and no dense peak exceeds the next-lower precision’s', () => {
    for (const id of GPU_IDS) {
      const g = GPU_SPECS[id];
      expect(g.sources.length, id).toBeGreaterThan(0);
      for (const s of g.sources.map((key) => GPU_SOURCES[key])) {
        expect(s.url, id).toMatch(/^https:\/\//);
        expect(s.title.length, id).toBeGreaterThan(10);
        expect(['datasheet', 'whitepaper', 'vendor page', 'secondary'], id).toContain(s.primary);
        expect(s.covers.length, id).toBeGreaterThan(5);
      }
      expect(g.note.length, `${id} says what is derived or uncertain`).toBeGreaterThan(20);
      const { tf32, bf16, fp8 } = g.peakTflops;
      if (tf32 !== null && bf16 !== null) expect(bf16, id).toBeGreaterThan(tf32);
      if (bf16 !== null && fp8 !== null) expect(fp8, id).toBeGreaterThan(bf16);
    }
  });

  test('ridge points are the ones the roofline card quotes (295, 200, 153 FLOP/byte)', () => {
    // The card rounds to whole FLOP/byte ("≈ 200" for 200.6).
    expect(Math.abs(ridgeFlopsPerByte(GPU_SPECS['h100-sxm'], 'bf16')! - 295)).toBeLessThan(1);
    expect(Math.abs(ridgeFlopsPerByte(GPU_SPECS['a100-sxm-40gb'], 'bf16')! - 200)).toBeLessThan(1);
    expect(Math.abs(ridgeFlopsPerByte(GPU_SPECS['a100-sxm-80gb'], 'bf16')! - 153)).toBeLessThan(1);
    expect(ridgeFlopsPerByte(GPU_SPECS['a100-sxm-80gb'], 'fp8')).toBeNull();
  });

  test('the lab metrics and the simulator read the table', () => {
    expect(densePeakTflops('NVIDIA L4')).toBe(121);
    expect(densePeakTflops('NVIDIA H100 80GB HBM3')).toBe(GPU_SPECS['h100-sxm'].peakTflops.bf16);
    expect(SIM_GPU.powerLimitWatts).toBe(GPU_SPECS['h100-sxm'].tdpWatts);
  });
});
