import { describe, expect, test } from 'vitest';
import { defaultPriceFor, describePrice, GPU_PRICES, NO_DEFAULT_PRICE } from '../../src/lib/gpu-prices.ts';
import { GPU_IDS } from '../../src/lib/gpu-specs.ts';
import { costOfFleet, type FleetGpuJson } from '../../src/lib/fleet-view.ts';

describe('default GPU prices', () => {
  test('every model of the spec table has a sourced, dated price or says why it has none', () => {
    for (const id of GPU_IDS) {
      const p = GPU_PRICES[id];
      if (!p) {
        expect(NO_DEFAULT_PRICE[id], id).toMatch(/enter your own/);
        continue;
      }
      expect(p.sourceUrl, id).toMatch(/^https:\/\//);
      expect(p.readOn, id).toMatch(/^2026-\d\d-\d\d$/);
      expect(Date.parse(p.readOn)).toBeLessThanOrEqual(Date.UTC(2026, 11, 1));
      expect(p.usdPerGpuHour, id).toBeGreaterThan(0);
      expect(p.via.length, id).toBeGreaterThan(10);
    }
  });

  test('a GPU named as dcgm-exporter names it finds its model’s price; an unknown or L4 GPU has none', () => {
    expect(defaultPriceFor('NVIDIA H100 80GB HBM3')?.usdPerGpuHour).toBe(3.99);
    expect(defaultPriceFor('NVIDIA H100 PCIe')?.usdPerGpuHour).toBe(3.29);
    expect(defaultPriceFor('NVIDIA A100-SXM4-40GB')?.usdPerGpuHour).toBe(1.99);
    expect(defaultPriceFor('NVIDIA H200')?.usdPerGpuHour).toBeCloseTo(50.44 / 8, 9);
    expect(defaultPriceFor('NVIDIA L4')).toBeNull();
    expect(defaultPriceFor('NVIDIA GeForce RTX 4090')).toBeNull();
  });

  test('a model gets its own sourced price or none, never a neighbour’s', () => {
    expect(defaultPriceFor('NVIDIA GH200 480GB')?.usdPerGpuHour).toBe(2.29); // Lambda's 96 GB GH200
    expect(defaultPriceFor('NVIDIA GH200 144G HBM3e')).toBeNull(); // not the 96 GB part's, not the H200's
    expect(defaultPriceFor('NVIDIA H200 NVL')).toBeNull(); // not the H200 SXM's $6.305
    expect(defaultPriceFor('NVIDIA H100 NVL')).toBeNull(); // not the H100 SXM's $3.99
    expect(defaultPriceFor('NVIDIA A100 80GB PCIe')).toBeNull(); // not the A100 SXM 80 GB's $2.79
    expect(defaultPriceFor('NVIDIA A100-PCIE-40GB')).toBeNull();
    expect(defaultPriceFor('NVIDIA B200')?.usdPerGpuHour).toBe(6.69);
    expect(defaultPriceFor('Tesla V100-SXM2-32GB')).toBeNull(); // Lambda lists a V100, but the table has no row
    expect(NO_DEFAULT_PRICE['h200-nvl']).toMatch(/H200 NVL .*enter your own/);
    expect(describePrice(GPU_PRICES['h100-sxm']!)).toBe(
      '$3.99/GPU-hour, Lambda list price (lambda.ai/instances), read 2026-09-20',
    );
  });
});

const gpu = (model: string, hours: Record<string, number>): FleetGpuJson => ({
  instance: 'h:9400',
  hostname: 'h',
  gpu: 0,
  uuid: null,
  model,
  labels: { pod: null, namespace: null, container: null, job: null },
  verdict: { kind: 'idle', title: 'Idle', confidence: 'high', evidence: [], next: '', cardId: 'gpu-util' },
  hours,
  wastefulHours: 0,
  energyKWh: null,
});

describe('costOfFleet', () => {
  test('prices each GPU at its model’s price, never the working hours, and counts unpriced models apart', () => {
    const cost = costOfFleet(
      [
        gpu('A', { idle: 2, 'compute-bound': 5 }),
        gpu('B', { 'data-starvation': 1 }),
        gpu('C', { idle: 3 }), // no price
      ],
      (m) => ({ A: 4, B: 2 })[m] ?? null,
    );
    expect(cost.totalUsd).toBe(10);
    expect(cost.byKindUsd).toEqual({ idle: 8, 'data-starvation': 2 });
    expect(cost.unpricedHours).toBe(3);
    expect(costOfFleet([gpu('C', { idle: 3 })], () => null).totalUsd).toBeNull();
  });
});
