/**
 * Issue 26 (the independent cluster's misses): a straggler is a rank set apart above a tight group, not any spread;
 * a rank spinning in a hung collective reads SM activity up to what NCCL's blocks hold (channels ÷ SMs), with
 * tensor, memory and power quiet, and is a hang, not small kernels; small kernels move memory and draw power.
 */
import { describe, expect, test } from 'vitest';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { setApart } from '../../src/lib/diagnose/set-apart.ts';
import { spinCeilingPct } from '../../src/lib/diagnose/spinning.ts';
import type { GpuSample, StreamMessage } from '../../src/protocol/metrics.ts';
import { windowOf } from '../fixtures/messages.ts';

const GiB = 1024 ** 3;
type Gpu = Partial<GpuSample>;
const H100 = { name: 'NVIDIA H100 80GB HBM3', powerLimitWatts: 700, memUsedBytes: 60 * GiB, gpuUtilPct: 99 };
const A100 = { ...H100, name: 'NVIDIA A100-SXM4-80GB', powerLimitWatts: 400 };
/** Five minutes at a 15 s scrape, as the fleet audit reads them. */
const scrapes = (gpus: readonly Gpu[]) => windowOf(gpus, { n: 21, intervalS: 15 });
/** The same with one host core pegged (a Python thread in a sync, or launching). */
const pegged = (msgs: StreamMessage[]): StreamMessage[] =>
  msgs.map((m) => ({
    ...m,
    host: {
      cpuPct: 9,
      perCorePct: [99, 3, 2, 4],
      load: { avg1: 1, avg5: 1, avg15: 1 },
      mem: { totalBytes: 64 * GiB, usedBytes: 8 * GiB, availableBytes: 56 * GiB },
    },
  }));
const rank = (sm: number, tensor: number, powerWatts: number): Gpu => ({
  ...H100,
  smActivePct: sm,
  tensorActivePct: tensor,
  dramActivePct: 30,
  powerWatts,
});

describe('a straggler is a rank set apart from a tight group, not a spread', () => {
  test('healthy synchronous training, each rank at its own level from 82% to 94% SM activity: no straggler', () => {
    // An even spread, with tensor and power drawn apart from SM activity as a fleet reads them.
    const sm = [82, 94, 88, 90, 85, 92, 83, 87];
    const tensor = [50, 41, 58, 45, 62, 47, 55, 44];
    const power = [560, 610, 590, 520, 640, 575, 600, 530];
    const d = diagnose(scrapes(sm.map((s, i) => rank(s, tensor[i]!, power[i]!))), 300);
    expect(d.kind).toBe('compute-bound');
  });

  test('one rank 21 points above a group 3 points wide, drawing more power: it is the straggler', () => {
    const d = diagnose(scrapes([rank(65, 46, 495), rank(64, 46, 492), rank(87, 63, 633), rank(66, 47, 500)]), 300);
    expect(d).toMatchObject({ kind: 'straggler', title: 'Straggler: every rank waits for GPU 2' });
    expect(d.evidence.join(' ')).toMatch(/at least 12 points above the others/);
  });

  test('two ranks set apart name both', () => {
    const gpus = [rank(88, 63, 630), rank(65, 46, 495), rank(66, 46, 500), rank(87, 62, 625)];
    gpus.push(rank(64, 45, 490), rank(66, 47, 498));
    expect(diagnose(scrapes(gpus), 300).title).toBe('Straggler: every rank waits for GPUs 0, 3');
  });

  test('a rank set apart in SM activity whose power says the opposite is not called a straggler', () => {
    const d = diagnose(scrapes([rank(65, 46, 600), rank(64, 46, 610), rank(87, 63, 480), rank(66, 47, 605)]), 300);
    expect(d.kind).not.toBe('straggler');
  });

  test('setApart: the gap must exceed the group spread and 12 points', () => {
    expect(setApart([88, 66, 65, 67])).toEqual([0]);
    expect(setApart([82, 94, 88, 90, 85, 92, 83, 87])).toEqual([]);
    expect(setApart([95, 70, 83])).toEqual([]); // 12 above, but the others spread 13 apart
    expect(setApart([80, 70])).toEqual([]); // 10 points: under the floor
  });
});

describe('a hung collective: busy in time, still in space', () => {
  // 20 channels of spinning blocks on 132 SMs: 15% SM activity (nccl#1432 reports 15% for one NCCL kernel).
  const hung: Gpu = { ...H100, gpuUtilPct: 100, smActivePct: 15, tensorActivePct: 0, dramActivePct: 0, powerWatts: 96 };

  test('the ceiling is 32 channels of the model SMs: 24% on an H100 SXM, 30% on an A100 SXM', () => {
    expect(spinCeilingPct({ name: 'NVIDIA H100 80GB HBM3' })).toBe(24);
    expect(spinCeilingPct({ name: 'NVIDIA A100-SXM4-80GB' })).toBe(30);
    expect(spinCeilingPct({ name: 'an unlisted GPU' })).toBeNull();
  });

  test('eight ranks at 15% SM activity, tensor and DRAM quiet, 96 W, a core pegged: a hang, medium', () => {
    const d = diagnose(pegged(scrapes(Array.from({ length: 8 }, () => hung))), 300);
    expect(d).toMatchObject({ kind: 'communication-hang', confidence: 'medium' });
    expect(d.gpus).toHaveLength(8);
    expect(d.evidence.join(' ')).toMatch(/SM activity up to 24% is what NCCL's spinning blocks hold/);
  });

  test('the same on an A100 at 25% SM activity (27 of 108 SMs) and 70 W: a hang', () => {
    const a: Gpu = { ...hung, ...A100, gpuUtilPct: 100, smActivePct: 25, powerWatts: 70 };
    expect(diagnose(pegged(scrapes([a, a, a, a])), 300).kind).toBe('communication-hang');
  });

  test('one such GPU alone, core pegged: never "small kernels" at high confidence; it says it cannot tell', () => {
    const d = diagnose(pegged(scrapes([hung])), 300);
    expect(d.kind).toBe('cant-tell');
    expect(d.decide).toMatch(/^Throughput/);
    expect(d.evidence.join(' ')).toMatch(/spin-waiting in a sync/);
  });

  test('small kernels move memory and draw power above idle: small kernels (high), never a hang', () => {
    const small: Gpu = { ...H100, smActivePct: 20, tensorActivePct: 3, dramActivePct: 8, powerWatts: 250 };
    const d = diagnose(pegged(scrapes([small, small, small, small])), 300);
    expect(d).toMatchObject({ kind: 'small-kernels', confidence: 'high' });
  });

  test('readings that conflict are never high: SM 15% with memory quiet but 300 W is small kernels, medium', () => {
    const odd: Gpu = { ...hung, powerWatts: 300 };
    const d = diagnose(pegged(scrapes([odd, odd, odd, odd])), 300);
    expect(d.kind).not.toBe('communication-hang');
    expect(d.confidence).not.toBe('high');
  });

  test('SM activity above what spinning blocks hold (28% on an H100) is not a hang', () => {
    const busy: Gpu = { ...hung, smActivePct: 28 };
    expect(diagnose(pegged(scrapes([busy, busy, busy, busy])), 300).kind).not.toBe('communication-hang');
  });
});
