import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { aggregate, describeCheck, evaluateCheck, validateCheck, type Check } from '../../src/lib/checks.ts';
import {
  densePeakTflops,
  formatMetric,
  METRIC_IDS,
  toPoint,
  type MetricId,
  type MetricPoint,
} from '../../src/lib/lab/metrics.ts';
import { advanceRun, simMessage, startRun } from '../../src/lib/lab/run.ts';
import { checkLabs } from '../../src/lib/lab/check.ts';
import { LabSchema, CheckSchema, type Lab } from '../../src/schemas/lab.ts';
import { loadDeck, markdownFiles, splitFrontmatter } from '../../src/data/load-deck-files.ts';

/** Points every 500 ms from t = 0 with the given values per metric (others null). */
function points(series: Partial<Record<MetricId, (i: number) => number | null>>, n: number): MetricPoint[] {
  return Array.from({ length: n }, (_, i) => {
    const values = Object.fromEntries(METRIC_IDS.map((id) => [id, series[id]?.(i) ?? null])) as Record<
      MetricId,
      number | null
    >;
    return { tMs: i * 500, values, why: { smActivePct: 'GPM needs Hopper or newer' } };
  });
}

const lowUtil: Check = { metric: 'gpuUtilPct', agg: 'mean', windowS: 10, op: '<', value: 40 };

describe('evaluateCheck', () => {
  test('passes a mean below the threshold once the window is full', () => {
    const r = evaluateCheck(lowUtil, points({ gpuUtilPct: (i) => (i % 4 === 0 ? 90 : 5) }, 21));
    expect(r.state).toBe('pass');
    expect(r.text).toMatch(/mean GPU-Util over 10 s: 26% \(needs < 40%\)/);
  });
  test('waits while the window is still filling, and shows what it has so far', () => {
    const r = evaluateCheck(lowUtil, points({ gpuUtilPct: () => 10 }, 8));
    expect(r.state).toBe('waiting');
    expect(r.text).toMatch(/4 of 10 s collected/);
  });
  test('fails when the aggregate misses', () => {
    expect(evaluateCheck(lowUtil, points({ gpuUtilPct: () => 97 }, 30)).state).toBe('fail');
  });
  test("says can't tell, with the reason, when the metric is null", () => {
    const r = evaluateCheck(
      { metric: 'smActivePct', agg: 'mean', windowS: 5, op: '<', value: 50 },
      points({ gpuUtilPct: () => 97 }, 30),
    );
    expect(r.state).toBe('unknown');
    expect(r.text).toMatch(/GPM needs Hopper/);
  });
  test('any: falls back to power when SM activity is missing', () => {
    const c: Check = {
      any: [
        { metric: 'smActivePct', agg: 'mean', windowS: 5, op: '<', value: 50 },
        { metric: 'powerPctOfLimit', agg: 'mean', windowS: 5, op: '<', value: 40 },
      ],
    };
    expect(evaluateCheck(c, points({ powerPctOfLimit: () => 29 }, 30)).state).toBe('pass');
    expect(evaluateCheck(c, points({ powerPctOfLimit: () => 80 }, 30)).state).toBe('unknown');
  });
  test('all: fails if any part fails', () => {
    const c: Check = { all: [lowUtil, { metric: 'maxCorePct', agg: 'mean', windowS: 10, op: '>', value: 85 }] };
    expect(evaluateCheck(c, points({ gpuUtilPct: () => 10, maxCorePct: () => 98 }, 30)).state).toBe('pass');
    expect(evaluateCheck(c, points({ gpuUtilPct: () => 10, maxCorePct: () => 20 }, 30)).state).toBe('fail');
  });
  test('forAtLeastS needs the condition to hold continuously', () => {
    const c: Check = { forAtLeastS: 5, check: { metric: 'gpuUtilPct', agg: 'last', windowS: 1, op: '>', value: 90 } };
    const broken = points({ gpuUtilPct: (i) => (i === 25 ? 10 : 95) }, 30);
    expect(evaluateCheck(c, broken).state).toBe('waiting');
    expect(evaluateCheck(c, points({ gpuUtilPct: () => 95 }, 30)).state).toBe('pass');
  });
  test('ratioTo compares with the previous step', () => {
    const c: Check = { metric: 'samplesPerSec', agg: 'mean', windowS: 5, op: '>=', value: 3, ratioTo: 'previous-step' };
    const p = points({ samplesPerSec: () => 2000 }, 20);
    expect(evaluateCheck(c, p, { baseline: { samplesPerSec: 320 } }).state).toBe('pass');
    expect(evaluateCheck(c, p, { baseline: { samplesPerSec: 1000 } }).state).toBe('fail');
    expect(evaluateCheck(c, p).state).toBe('unknown');
  });
  test('aggregates: stddev sees a sawtooth, p95 and last', () => {
    expect(aggregate([0, 20, 0, 20], 'stddev')).toBe(10);
    expect(aggregate([1, 2, 3, 4, 5], 'p95')).toBeCloseTo(4.8);
    expect(aggregate([3, 1, 2], 'last')).toBe(2);
  });
  test('describes checks in words', () => {
    expect(describeCheck(lowUtil)).toBe('mean GPU-Util over 10 s < 40%');
  });
});

describe('lab metrics', () => {
  test('dense peaks, never the sparse figure', () => {
    expect(densePeakTflops('NVIDIA H100 80GB HBM3')).toBe(989.4);
    expect(densePeakTflops('NVIDIA H100 PCIe')).toBe(756);
    expect(densePeakTflops('NVIDIA H200')).toBe(989.4);
    expect(densePeakTflops('NVIDIA A100-SXM4-40GB')).toBe(312);
    expect(densePeakTflops('NVIDIA GeForce RTX 4090')).toBe(165.2); // BF16 with FP32 accumulate
    expect(densePeakTflops('Tesla V100-SXM2-32GB')).toBeNull();
  });
  test('MFU on a GPU the table does not know says "unknown model", never a neighbour’s peak', () => {
    const msg = simMessage('compute-bound', 5000, 'mfu', { amp: 1 }, 0);
    const renamed = { ...msg, gpus: msg.gpus.map((g) => ({ ...g, name: 'NVIDIA H800' })) };
    const p = toPoint(renamed, 0, { flopsPerUnit: 1.26e9 });
    expect(p.values.mfuPct).toBeNull();
    expect(p.why.mfuPct).toBe(
      'NVIDIA H800 is an unknown model (not in the GPU table, src/lib/gpu-specs.ts), so MFU has no dense peak to divide by',
    );
  });
  test('MFU from tokens/s, FLOPs per token and the dense peak', () => {
    const p = toPoint(simMessage('compute-bound', 5000, 'mfu', { amp: 1 }, 0), 0, { flopsPerUnit: 1.26e9 });
    expect(p.values.mfuPct).toBeCloseTo((100 * (p.values.tokensPerSec ?? 0) * 1.26e9) / 989.4e12, 6);
    expect(p.values.mfuPct).toBeCloseTo(25, 0); // the illustrative bf16 MFU the simulator plays (src/lib/lab/physics.ts)
    const none = toPoint(simMessage('compute-bound', 5000, 'mfu', {}, 0), 0);
    expect(none.values.mfuPct).toBeNull();
    expect(none.why.mfuPct).toMatch(/FLOPs per token/);
  });
  test('derived metrics: power as % of limit, clock as % of max, clock event reasons as 0/1', () => {
    const p = toPoint(simMessage('throttled', 5000, 'x', {}, 0), 0);
    expect(p.values.powerPctOfLimit).toBeGreaterThan(95);
    expect(p.values.smClockPctOfMax).toBeLessThan(90);
    expect(p.values.powerCapActive).toBe(1);
    expect(p.values.powerLimitWatts).toBe(400);
    expect(formatMetric('powerCapActive', 0.5)).toBe('50% of the time');
  });
});

describe('validateCheck', () => {
  test('accepts a sound check', () => expect(validateCheck(lowUtil)).toEqual([]));
  test('names an unknown metric and lists the valid ones', () => {
    expect(validateCheck({ ...lowUtil, metric: 'gpuUtil' })[0]).toMatch(
      /unknown metric "gpuUtil". Use one of: gpuUtilPct/,
    );
  });
  test('rejects impossible windows, holds and thresholds', () => {
    expect(validateCheck({ ...lowUtil, windowS: 0.2 })[0]).toMatch(/at least 1 s/);
    expect(validateCheck({ ...lowUtil, windowS: 900 })[0]).toMatch(/longer than the 300 s/);
    expect(validateCheck({ forAtLeastS: 400, check: lowUtil })[0]).toMatch(/forAtLeastS: 400 s is impossible/);
    expect(validateCheck({ metric: 'dramActivePct', agg: 'mean', windowS: 10, op: '>', value: 85 })[0]).toMatch(
      /tops out near 80%/,
    );
    expect(validateCheck({ ...lowUtil, op: '<', value: 0 })[0]).toMatch(/can never pass/);
  });
  test('the schema turns problems into issues', () => {
    const r = CheckSchema.safeParse({ all: [{ metric: 'nope', agg: 'mean', windowS: 10, op: '<', value: 1 }] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/check\.all\[0\]\.metric: unknown metric "nope"/);
  });
});

describe('checkLabs', () => {
  test('reports missing cards, bad prefixes and duplicate ids, naming the file', () => {
    const problems = checkLabs(
      [
        {
          id: 'a',
          file: 'content/labs/a.md',
          order: 1,
          prerequisites: ['gpu-util', 'nope'],
          questionIds: ['lab-a-x', 'b-y'],
        },
        {
          id: 'b',
          file: 'content/labs/b.md',
          order: 1,
          prerequisites: ['gpu-util'],
          questionIds: ['lab-b-x', 'gpu-util-def'],
        },
      ],
      new Set(['gpu-util']),
      new Set(['gpu-util-def']),
    );
    expect(problems.join('\n')).toMatch(/a\.md: prerequisite "nope"/);
    expect(problems.join('\n')).toMatch(/a\.md: debrief question "b-y" must start with "lab-a-"/);
    expect(problems.join('\n')).toMatch(/b\.md: order 1 is also used/);
    expect(problems.join('\n')).toMatch(/b\.md: debrief question id "gpu-util-def" is already used by a card/);
  });
});

// ---- every lab in content/labs ----
const root = process.cwd();
const labFiles = markdownFiles(join(root, 'content', 'labs'));
const labs: { id: string; data: Lab }[] = labFiles.map((f) => {
  const parsed = LabSchema.safeParse(splitFrontmatter(readFileSync(f, 'utf8')).data);
  if (!parsed.success)
    throw new Error(`${f}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return { id: basename(f, '.md'), data: parsed.data };
});

describe('the labs in content/labs', () => {
  test('there are at least 7, and they pass the schema and the cross-file checks', () => {
    expect(labs.length).toBeGreaterThanOrEqual(7);
    const deck = loadDeck(root);
    const problems = checkLabs(
      labs.map((l) => ({
        id: l.id,
        file: `content/labs/${l.id}.md`,
        order: l.data.order,
        prerequisites: l.data.prerequisites,
        questionIds: l.data.debrief.map((q) => q.id),
      })),
      new Set(deck.cards.map((c) => c.id)),
      new Set(deck.cards.flatMap((c) => c.data.questions.map((q) => q.id))),
    );
    expect(problems).toEqual([]);
  });

  test.each(labs.map((l) => [l.id, l] as const))('%s runs end to end in the in-page simulator', (_id, lab) => {
    // Play each step as the page does (10× speed makes no difference: time is the samples' own).
    let state = startRun();
    const msgs: ReturnType<typeof toPoint>[] = [];
    let t = 0;
    let seq = 0;
    const ctx = lab.data.mfu ? { flopsPerUnit: lab.data.mfu.flopsPerToken } : {};
    for (const [i, step] of lab.data.steps.entries()) {
      const tick = (scenario: string, knobs: Record<string, number>) => {
        msgs.push(toPoint(simMessage(scenario, t, `test-${lab.id}`, knobs, seq++), 0, ctx));
        t += 500;
        const r = advanceRun(lab.data.steps, state, msgs);
        state = r.state;
        return r;
      };
      if (step.fix) {
        // Before the fix: once the window has filled, the step fails and does not advance.
        let last = null;
        for (let k = 0; k < 40; k++) last = tick(step.sim.scenario, step.sim.knobs).result;
        expect(state.index, `${lab.id} step ${step.id} passed without the fix`).toBe(i);
        expect(last?.state, `${lab.id} step ${step.id} before the fix: ${last?.text}`).toBe('fail');
      }
      const scenario = step.fix?.scenario ?? step.sim.scenario;
      const knobs = step.fix ? step.fix.knobs : step.sim.knobs;
      let k = 0;
      while (state.index === i && k++ < 120) tick(scenario, knobs);
      expect(state.index, `${lab.id} step ${step.id} did not pass within 60 s of simulated time`).toBe(i + 1);
    }
    expect(state.passedAtMs).toHaveLength(lab.data.steps.length);
  });
});
