import { describe, expect, test } from 'vitest';
import type { StreamMessage } from '../../src/protocol/metrics.ts';
import { diagnose, type BottleneckKind } from '../../src/lib/diagnose.ts';
import { simMessage } from '../../src/lib/lab-run.ts';
import { SCENARIO_IDS } from '../../src/lib/sim/index.ts';

/** A labelled trace recipe: a scenario, knob values (or a range to draw from) and the right answer. */
interface Case {
  scenario: string;
  label: BottleneckKind;
  /** Knob values; a [lo, hi] pair is drawn per noisy trace (integers). */
  knobs: Record<string, number | [number, number]>;
  /** Earliest start of the window, s (the hang begins at 15 s). */
  fromS?: number;
}

const CASES: Case[] = [
  { scenario: 'idle', label: 'idle-allocated', knobs: {} },
  { scenario: 'idle', label: 'idle', knobs: { releaseMemory: 1 } },
  { scenario: 'data-starved', label: 'data-starvation', knobs: { numWorkers: [0, 4] } },
  { scenario: 'data-starved', label: 'compute-bound', knobs: { numWorkers: [8, 15] } },
  { scenario: 'small-kernels', label: 'small-kernels', knobs: { batchSize: [1, 20] } },
  { scenario: 'small-kernels', label: 'compute-bound', knobs: { batchSize: [96, 256] } },
  { scenario: 'memory-bound', label: 'memory-bound', knobs: { fused: 0 } },
  { scenario: 'memory-bound', label: 'compute-bound', knobs: { fused: 1 } },
  { scenario: 'compute-bound', label: 'compute-bound', knobs: { amp: [0, 1] } },
  { scenario: 'throttled', label: 'throttled', knobs: { powerLimitWatts: [250, 450], airflow: [0, 1] } },
  { scenario: 'throttled', label: 'throttled', knobs: { powerLimitWatts: 700, airflow: 0 } },
  { scenario: 'throttled', label: 'compute-bound', knobs: { powerLimitWatts: 700, airflow: 1 } },
  { scenario: 'nccl-hang', label: 'communication-hang', knobs: { hang: 1 }, fromS: 20 },
  { scenario: 'nccl-hang', label: 'compute-bound', knobs: { hang: 0 } },
  { scenario: 'straggler', label: 'straggler', knobs: { balanced: 0 } },
  { scenario: 'straggler', label: 'compute-bound', knobs: { balanced: 1 } },
];

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (r: () => number): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
const clampPct = (x: number): number => Math.min(100, Math.max(0, x));

const GPM = [
  'smActivePct',
  'smOccupancyPct',
  'tensorActivePct',
  'dramActivePct',
  'fp16ActivePct',
  'fp32ActivePct',
  'fp64ActivePct',
] as const;

type Gpu = StreamMessage['gpus'][number];
const setNull = (g: Gpu, f: (typeof GPM)[number], reason: string): void => {
  g[f] = null;
  g.nullReasons[f] = reason;
};

/** 30 s of samples. Noisy traces draw knobs, start time, sample jitter, sensor noise and GPM dropouts. */
function trace(c: Case, noisy: number | null, opts: { noGpm?: boolean } = {}): StreamMessage[] {
  const r = rng(noisy ?? 1);
  const knobs = Object.fromEntries(
    Object.entries(c.knobs).map(([k, v]) => [
      k,
      Array.isArray(v) ? (noisy === null ? v[0] : v[0] + Math.floor(r() * (v[1] - v[0] + 1))) : v,
    ]),
  );
  let t = ((c.fromS ?? 3) + (noisy === null ? 2 : r() * 40)) * 1000;
  const out: StreamMessage[] = [];
  for (let i = 0; i < 61; i++) {
    const m = simMessage(c.scenario, Math.round(t), noisy === null ? 'clean' : `noisy-${noisy}`, knobs, i);
    if (noisy !== null) {
      for (const g of m.gpus) {
        for (const f of ['gpuUtilPct', 'memUtilPct', ...GPM] as const)
          if (g[f] !== null) g[f] = clampPct((g[f] as number) + gauss(r) * 5);
        if (g.powerWatts !== null) g.powerWatts *= 1 + gauss(r) * 0.05;
        if (g.smClockMhz !== null) g.smClockMhz = Math.max(0, g.smClockMhz + gauss(r) * 15);
        if (r() < 0.08) for (const f of GPM) setNull(g, f, 'GPM sample missed');
      }
      if (m.host) m.host.perCorePct = m.host.perCorePct.map((p) => clampPct(p + gauss(r) * 3));
      if (m.throughput?.samplesPerSec) m.throughput.samplesPerSec *= 1 + gauss(r) * 0.03;
      if (m.throughput?.tokensPerSec) m.throughput.tokensPerSec *= 1 + gauss(r) * 0.03;
    }
    if (opts.noGpm) for (const g of m.gpus) for (const f of GPM) setNull(g, f, 'GPM needs Hopper or newer');
    out.push(m);
    t += noisy === null ? 500 : 500 + (r() - 0.5) * 100;
  }
  return out;
}

const LABELS: BottleneckKind[] = [
  'idle',
  'idle-allocated',
  'data-starvation',
  'small-kernels',
  'memory-bound',
  'compute-bound',
  'throttled',
  'communication-hang',
  'straggler',
  'cant-tell',
];

/** Rows: the true label; columns: the diagnosis. */
function confusion(results: { label: BottleneckKind; got: BottleneckKind }[], title: string): string {
  const short = (k: string) =>
    k
      .replace('communication-', 'comm-')
      .replace('data-starvation', 'starved')
      .replace('idle-allocated', 'idle-alloc')
      .slice(0, 10);
  const head = `${'true \\ diagnosed'.padEnd(18)}${LABELS.map((l) => short(l).padStart(11)).join('')}`;
  const rows = LABELS.filter((l) => results.some((x) => x.label === l)).map(
    (l) =>
      `${l.padEnd(18)}${LABELS.map((p) => String(results.filter((x) => x.label === l && x.got === p).length || '.').padStart(11)).join('')}`,
  );
  const right = results.filter((x) => x.label === x.got).length;
  return `${title}: ${right}/${results.length} right (${((100 * right) / results.length).toFixed(1)}%)\n${head}\n${rows.join('\n')}`;
}

describe('diagnose on labelled simulator traces', () => {
  test('covers every scenario', () => {
    expect(new Set(CASES.map((c) => c.scenario))).toEqual(new Set(SCENARIO_IDS));
  });

  test('is right on every clean trace', () => {
    const results = CASES.map((c) => ({ c, label: c.label, got: diagnose(trace(c, null)).kind }));
    console.log(confusion(results, 'clean traces'));
    for (const r of results) expect(r.got, `${r.c.scenario} ${JSON.stringify(r.c.knobs)}`).toBe(r.label);
  });

  test('is right on at least 90% of noisy traces (12 seeds per case)', () => {
    const results = CASES.flatMap((c) =>
      Array.from({ length: 12 }, (_, s) => ({ label: c.label, got: diagnose(trace(c, 1000 + s * 7919)).kind })),
    );
    const text = confusion(results, 'noisy traces');
    console.log(text);
    const right = results.filter((x) => x.label === x.got).length;
    expect(right / results.length).toBeGreaterThanOrEqual(0.9);
  });

  test("without GPM it is right or says can't tell, never wrong", () => {
    const results = CASES.map((c) => ({ c, label: c.label, d: diagnose(trace(c, null, { noGpm: true })) }));
    console.log(
      confusion(
        results.map((x) => ({ label: x.label, got: x.d.kind })),
        'clean traces, GPM missing',
      ),
    );
    for (const { c, label, d } of results) {
      expect([label, 'cant-tell'], `${c.scenario} ${JSON.stringify(c.knobs)} → ${d.kind}`).toContain(d.kind);
      if (d.kind === 'cant-tell') expect(d.decide).toMatch(/SM|tensor|DRAM/);
    }
    // Small kernels are still caught, from power.
    expect(results.find((x) => x.c.scenario === 'small-kernels' && x.label === 'small-kernels')?.d.kind).toBe(
      'small-kernels',
    );
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
