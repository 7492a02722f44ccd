/**
 * The GPU table's name lookup: every name a row lists finds that row, real-world variants find the right row or
 * none, and a near miss is an unknown model, never a neighbour's numbers (issue 27: "NVIDIA GH200 480GB" used to
 * match /H200/ and get the H200's 141 GB, 4.8 TB/s and 700 W).
 */
import { describe, expect, test } from 'vitest';
import {
  describeGpuModel,
  GPU_IDS,
  GPU_SPECS,
  gpuSpecByName,
  normaliseGpuName,
  peakShareAtClock,
  type GpuId,
} from '../../src/lib/gpu-specs.ts';
import { densePeakTflops } from '../../src/lib/lab/metrics.ts';
import type { AuditReport } from '../../server/fleet/audit.ts';
import { toJson, toMarkdown } from '../../server/fleet/report.ts';

/** Names as NVML / nvidia-smi / dcgm-exporter report them, and the row each must find (null: unknown model). */
const REAL_WORLD: [string, GpuId | null][] = [
  ['NVIDIA A100-SXM4-80GB', 'a100-sxm-80gb'],
  ['NVIDIA A100-SXM4-40GB', 'a100-sxm-40gb'],
  ['A100-SXM4-40GB', 'a100-sxm-40gb'], // older drivers: no "NVIDIA " prefix
  ['NVIDIA A100-SXM-80GB', 'a100-sxm-80gb'],
  ['NVIDIA A100-PCIE-40GB', 'a100-pcie-40gb'],
  ['NVIDIA A100 80GB PCIe', 'a100-pcie-80gb'],
  ['NVIDIA H100 80GB HBM3', 'h100-sxm'],
  ['NVIDIA H100 PCIe', 'h100-pcie'],
  ['NVIDIA H100 NVL', 'h100-nvl'],
  ['NVIDIA H200', 'h200'],
  ['NVIDIA H200 NVL', 'h200-nvl'],
  ['NVIDIA GH200 480GB', 'gh200-96gb'],
  ['NVIDIA GH200 144G HBM3e', 'gh200-144gb'],
  ['NVIDIA B200', 'b200'],
  ['NVIDIA A10', 'a10'],
  ['NVIDIA A10G', 'a10g'],
  ['NVIDIA A30', 'a30'],
  ['NVIDIA A40', 'a40'],
  ['NVIDIA L4', 'l4'],
  ['NVIDIA L40', 'l40'],
  ['NVIDIA L40S', 'l40s'],
  ['NVIDIA RTX 6000 Ada Generation', 'rtx-6000-ada'],
  ['NVIDIA RTX A6000', 'rtx-a6000'],
  ['NVIDIA GeForce RTX 4090', 'rtx-4090'],
  ['  nvidia   h100   NVL ', 'h100-nvl'], // case and whitespace
  ['NVIDIA  GH200 480GB', 'gh200-96gb'],
  // Not in the table: unknown, however close the neighbour.
  ['Tesla V100-SXM2-32GB', null],
  ['Tesla T4', null],
  ['NVIDIA H800', null],
  ['NVIDIA H20', null],
  ['NVIDIA A800-SXM4-80GB', null],
  ['NVIDIA H100', null],
  ['NVIDIA GH200', null],
  ['NVIDIA GH200 120GB', null],
  ['NVIDIA H100 80GB HBM3 MIG 1g.10gb', null], // a MIG slice is not the whole GPU
  ['NVIDIA A100-SXM4-40GB MIG 3g.20gb', null],
  ['NVIDIA L40S-48C', null], // a vGPU profile
  ['NVIDIA GeForce RTX 4080', null],
  ['NVIDIA GeForce RTX 4090 D', null],
  ['Quadro RTX 6000', null],
  ['NVIDIA RTX 6000', null],
  ['NVIDIA H200 141GB HBM3e', null],
  ['unknown GPU', null],
  ['', null],
];

describe('GPU table rows', () => {
  test('at least 20 products, each with NVML names, sources and a note', () => {
    expect(GPU_IDS.length).toBeGreaterThanOrEqual(20);
    for (const id of GPU_IDS) expect(GPU_SPECS[id].nvmlNames.length, id).toBeGreaterThan(0);
  });

  test('the products the issue names are all rows', () => {
    const required: GpuId[] = [
      'a10', 'a10g', 'a30', 'a40', 'l4', 'l40', 'l40s', 'a100-pcie-40gb', 'a100-pcie-80gb', 'a100-sxm-40gb',
      'a100-sxm-80gb', 'h100-pcie', 'h100-sxm', 'h100-nvl', 'h200', 'h200-nvl', 'gh200-96gb', 'gh200-144gb', 'b200',
      'rtx-6000-ada', 'rtx-a6000', 'rtx-4090',
    ]; // prettier-ignore
    expect(GPU_IDS).toEqual(expect.arrayContaining(required));
  });

  test('where a row gives SMs and the peak clock, the BF16 peak is SMs × a whole per-SM rate × that clock', () => {
    // Dense FP16/BF16 FLOPs per SM per clock: 512 (GeForce/L40, FP32 accumulate), 1,024 (GA10x/Ada pro),
    // 2,048 (A100, A30), 4,096 (Hopper). A peak clock that fits none of these would be a typo.
    for (const id of GPU_IDS) {
      const g = GPU_SPECS[id];
      if (g.smCount === null || g.peakClockMHz === null) continue;
      const perSmPerClock = (g.peakTflops.bf16! * 1e12) / (g.smCount * g.peakClockMHz * 1e6);
      const rate = [512, 1024, 2048, 4096].find((r) => Math.abs(perSmPerClock / r - 1) < 0.005);
      expect(rate, `${id}: ${perSmPerClock} FLOPs per SM per clock`).toBeDefined();
    }
  });

  test('H100 SXM: 989.4 dense BF16 at 1,830 MHz; the 1,980 MHz max clock is 8% above it', () => {
    const h100 = GPU_SPECS['h100-sxm'];
    expect([h100.peakClockMHz, h100.maxSmClockMHz]).toEqual([1830, 1980]);
    expect(peakShareAtClock(h100, 1830)).toBe(1);
    expect(peakShareAtClock(h100, 1980)).toBeCloseTo(1.082, 3);
    expect(peakShareAtClock(GPU_SPECS.b200, 1800)).toBeNull(); // no published clock: no guess
  });
});

describe('finding a GPU by name', () => {
  test('every name a row lists finds that row, also without "NVIDIA ", in other case and spacing', () => {
    for (const id of GPU_IDS)
      for (const name of GPU_SPECS[id].nvmlNames) {
        expect(gpuSpecByName(name)?.id, name).toBe(id);
        expect(gpuSpecByName(` ${name.toUpperCase().replace(/ /g, '  ')} `)?.id, name).toBe(id);
        expect(gpuSpecByName(name.replace(/^NVIDIA /, ''))?.id, name).toBe(id);
      }
  });

  test('no name is listed on two rows', () => {
    const all = GPU_IDS.flatMap((id) => GPU_SPECS[id].nvmlNames.map(normaliseGpuName));
    expect(new Set(all).size).toBe(all.length);
  });

  test.each(REAL_WORLD)('%j → %s', (name, id) => {
    expect(gpuSpecByName(name)?.id ?? null).toBe(id);
  });

  test('GH200 never gets the H200’s numbers', () => {
    const h200 = GPU_SPECS.h200;
    for (const name of ['NVIDIA GH200 480GB', 'NVIDIA GH200 144G HBM3e']) {
      const g = gpuSpecByName(name)!;
      expect(g.id).not.toBe('h200');
      expect(g.memGB).not.toBe(h200.memGB);
      expect(g.memBandwidthGBps).not.toBe(h200.memBandwidthGBps);
      expect(g.tdpWatts).not.toBe(h200.tdpWatts);
    }
    expect([gpuSpecByName('NVIDIA GH200 480GB')!.memGB, gpuSpecByName('NVIDIA GH200 144G HBM3e')!.memGB]).toEqual([
      96, 144,
    ]);
  });

  test('H100 NVL and H200 NVL never get the SXM rows: 94 GB, 3.9 TB/s, 835.5 dense BF16', () => {
    const nvl = gpuSpecByName('NVIDIA H100 NVL')!;
    expect([nvl.memGB, nvl.memBandwidthGBps, nvl.tdpWatts, nvl.peakTflops.bf16]).toEqual([94, 3900, 400, 835.5]);
    // MFU against the SXM peak would be understated by 1 − 835.5 ÷ 989.4 ≈ 16%.
    expect(1 - nvl.peakTflops.bf16! / GPU_SPECS['h100-sxm'].peakTflops.bf16!).toBeCloseTo(0.156, 3);
    const h200nvl = gpuSpecByName('NVIDIA H200 NVL')!;
    expect([h200nvl.id, h200nvl.tdpWatts, h200nvl.peakTflops.bf16]).toEqual(['h200-nvl', 600, 835.5]);
  });

  test('A100 PCIe never gets the SXM rows’ bandwidth and power', () => {
    const p40 = gpuSpecByName('NVIDIA A100-PCIE-40GB')!;
    const p80 = gpuSpecByName('NVIDIA A100 80GB PCIe')!;
    expect([p40.id, p40.memBandwidthGBps, p40.tdpWatts]).toEqual(['a100-pcie-40gb', 1555, 250]);
    expect([p80.id, p80.memBandwidthGBps, p80.tdpWatts]).toEqual(['a100-pcie-80gb', 1935, 300]);
    expect(p80.peakTflops.bf16).toBe(GPU_SPECS['a100-sxm-80gb'].peakTflops.bf16); // same compute, stated per row
  });

  test('an unknown name is shown as an unknown model, a known one as reported', () => {
    expect(describeGpuModel('Tesla V100-SXM2-32GB')).toBe('Tesla V100-SXM2-32GB (unknown model)');
    expect(describeGpuModel('NVIDIA GH200 144G HBM3e')).toBe('NVIDIA GH200 144G HBM3e');
    expect(describeGpuModel('NVIDIA H100 SXM5 80GB')).toBe('NVIDIA H100 SXM5 80GB (unknown model)');
  });

  test('the lab’s MFU uses the exact row’s peak, and says "unknown model" rather than borrowing one', () => {
    expect(densePeakTflops('NVIDIA H100 NVL')).toBe(835.5);
    expect(densePeakTflops('NVIDIA GH200 480GB')).toBe(989.4);
    expect(densePeakTflops('Tesla V100-SXM2-32GB')).toBeNull();
  });
});

describe('where a model is shown', () => {
  test('the audit report marks an unknown model in its table and names the table row in JSON', () => {
    const gpu = (hostname: string, model: string) => ({
      key: hostname,
      instance: hostname,
      hostname,
      gpu: 0,
      uuid: null,
      model,
      owner: { pod: null, namespace: null, container: null, job: null },
      verdict: { kind: 'healthy', title: 'Healthy', confidence: 'high', evidence: [], next: [], cardId: null },
      hours: {},
      reportedHours: 1,
      energyKWh: null,
      pricePerGpuHour: null,
    });
    const report = {
      window: {
        startS: 0,
        endS: 3600,
        seconds: 3600,
        segmentS: 600,
        liveS: 300,
        path: 'raw',
        rulesS: 0,
        rulesFromS: null,
        rulesToS: null,
      },
      prometheus: 'http://prom',
      queries: 1,
      gpus: [gpu('a', 'Tesla V100-SXM2-32GB'), gpu('b', 'NVIDIA GH200 480GB')],
      summary: {
        gpus: 2,
        gpuHours: 2,
        byKind: {},
        wastefulHours: 0,
        energyKWh: null,
        pricePerGpuHour: null,
        wastefulCostUsd: null,
        costByKind: {},
        unpricedWastefulHours: 0,
        defaultPrices: [],
      },
    } as unknown as AuditReport;
    const md = toMarkdown(report);
    expect(md).toMatch(/^\| a \| 0 \| Tesla V100-SXM2-32GB \(unknown model\) \|/m);
    expect(md).toMatch(/^\| b \| 0 \| NVIDIA GH200 480GB \|/m);
    const json = toJson(report) as { gpus: { modelRow: string | null }[] };
    expect(json.gpus.map((g) => g.modelRow)).toEqual([null, 'gh200-96gb']);
  });
});
