import { describe, expect, test } from 'vitest';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { SCENARIO_IDS } from '../../src/lib/sim/index.ts';
import { SIM_CASES as CASES, fleetTrace, trace, type SimCase as Case } from '../fixtures/sim-traces.ts';
import { FLEET } from '../fixtures/real/convert.ts';
import { confusion, tally, type Scored } from '../fixtures/score.ts';

describe('diagnose on labelled simulator traces', () => {
  test('covers every scenario', () => {
    expect(new Set(CASES.map((c) => c.scenario))).toEqual(new Set(SCENARIO_IDS));
  });

  test('is right on every clean trace', () => {
    const results: Scored[] = CASES.map((c) => ({ id: c.scenario, truth: c.label, got: diagnose(trace(c, null)) }));
    for (const [i, r] of results.entries())
      expect(r.got.kind, `${r.id} ${JSON.stringify(CASES[i]?.knobs)}\n${confusion(results, 'clean')}`).toBe(r.truth);
  });

  test('is right on at least 99% of noisy traces (12 seeds per case), never wrong with high confidence', () => {
    const results: Scored[] = CASES.flatMap((c) =>
      Array.from({ length: 12 }, (_, s) => ({
        id: c.scenario,
        truth: c.label,
        got: diagnose(trace(c, 1000 + s * 7919)),
      })),
    );
    const t = tally(results);
    expect(t.right / t.n, confusion(results, 'noisy traces')).toBeGreaterThanOrEqual(0.99);
    expect(t.wrongHigh).toBe(0);
  });

  test("without GPM it is right or says can't tell, never wrong", () => {
    const results = CASES.map((c) => ({ c, label: c.label, d: diagnose(trace(c, null, { noGpm: true })) }));
    for (const { c, label, d } of results) {
      expect([label, 'cant-tell'], `${c.scenario} ${JSON.stringify(c.knobs)} → ${d.kind}`).toContain(d.kind);
      if (d.kind === 'cant-tell') expect(d.decide).toMatch(/SM|tensor|DRAM|Throughput|reasons/);
    }
    // Small kernels are still caught: low power while the loop reports progress and one core is pegged.
    expect(results.find((x) => x.c.scenario === 'small-kernels' && x.label === 'small-kernels')?.d.kind).toBe(
      'small-kernels',
    );
  });

  test("at fleet resolution (30 s, no host, no throughput) it is right or says can't tell, never wrong", () => {
    const results: Scored[] = CASES.map((c) => ({
      id: c.scenario,
      truth: c.label,
      got: diagnose(fleetTrace(c), FLEET.windowS),
    }));
    expect(tally(results).wrong, confusion(results, 'simulator, fleet resolution')).toBe(0);
  });
});

describe('diagnose: evidence and advice', () => {
  test('busy in time, not in space: quotes GPU-Util against SM activity and links the card', () => {
    const d = diagnose(trace({ scenario: 'small-kernels', label: 'small-kernels', knobs: { batchSize: 8 } }, null));
    expect(d.evidence[0]).toBe('GPU-Util 97% but SM activity 22% over 30 s');
    expect(d.cardId).toBe('small-batches-small-kernels');
    expect(d.next).toMatch(/batch size/);
  });
  test('data starvation names the pegged core and suggests workers', () => {
    const d = diagnose(trace({ scenario: 'data-starved', label: 'data-starvation', knobs: { numWorkers: 0 } }, null));
    expect(d.evidence.join(' ')).toMatch(/busiest CPU core 9\d%/);
    expect(d.next).toMatch(/num_workers=8/);
  });
  test('an NCCL hang points at the stalled rank', () => {
    const d = diagnose(
      trace({ scenario: 'nccl-hang', label: 'communication-hang', knobs: { hang: 1 }, fromS: 20 }, null),
    );
    expect(d.gpus).toEqual([0, 1, 3]);
    expect(d.evidence.join(' ')).toMatch(/GPU 2: 0%/);
  });
  test('too little data: still collecting', () => {
    expect(diagnose(trace(CASES[0] as Case, null).slice(0, 4)).title).toMatch(/Collecting/);
    expect(diagnose([]).kind).toBe('cant-tell');
  });
  test('no GPU-Util at all: cannot tell, and says why', () => {
    const msgs = trace(CASES[0] as Case, null).map((m) => ({
      ...m,
      gpus: m.gpus.map((g) => ({ ...g, gpuUtilPct: null, nullReasons: { gpuUtilPct: 'not supported (NVML 3)' } })),
    }));
    const d = diagnose(msgs);
    expect(d.kind).toBe('cant-tell');
    expect(d.evidence[0]).toMatch(/NVML 3/);
  });
});
