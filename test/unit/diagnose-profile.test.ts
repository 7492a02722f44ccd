import { describe, expect, test } from 'vitest';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { STARVED_WAIT } from '../../src/lib/diagnose/gpu.ts';
import { BUSY_IDLE_SHARE, emptyProfile, profileVerdict, type ProfileReadings } from '../../src/lib/diagnose/profile.ts';
import { analyzeTraces, createTraceParser } from '../../src/lib/trace/index.ts';
import { traceReadings } from '../../src/lib/trace/readings.ts';
import { RealCaseSchema, caseMessages } from '../fixtures/real/convert.ts';
import { cpu, launch, step, traceText, type Ev } from './trace-gen.ts';

/** A profile with only `given` measured; the rest null with a reason. */
const profile = (given: Partial<ProfileReadings>): ProfileReadings => {
  const p = emptyProfile('test profile', 'not measured in this test');
  for (const [k, v] of Object.entries(given)) {
    (p as unknown as Record<string, unknown>)[k] = v;
    delete p.nullReasons[k as keyof ProfileReadings['nullReasons']];
  }
  return p;
};

/** 30 s of one GPU at `util`% GPU-Util and nothing else: the counters alone say "can't tell". */
const waitingGpu = (util: number, extra: Record<string, number> = {}) =>
  caseMessages(
    RealCaseSchema.parse({
      id: 'test-waiting',
      url: 'https://example.org/test',
      gpu: 'H100',
      tool: 'test',
      posted: 'a test case with GPU-Util only',
      cause: 'a test case with GPU-Util only, nothing else',
      truth: 'cant-tell',
      sampling: 'snapshot',
      missing: 'not in this test',
      gpus: [{ name: 'NVIDIA H100 80GB HBM3', gpuUtilPct: util, ...extra }],
    }),
  );

describe('profiler readings decide what counters cannot', () => {
  test('a null reading is never read as 0: an empty profile decides nothing', () => {
    expect(profileVerdict(emptyProfile('nothing', 'not measured'))).toBeNull();
    // GPU idle most of the time, but no reading says on what: still undecided.
    expect(profileVerdict(profile({ gpuIdleShare: 0.9 }))).toBeNull();
  });

  test('the DataLoader taking a quarter of each step or more is data starvation, the counters’ own line', () => {
    expect(STARVED_WAIT).toBe(0.25);
    const v = profileVerdict(profile({ gpuIdleShare: 0.6, stepMs: 10, dataLoaderMsPerStep: 6 }))!;
    expect(v).toMatchObject({ kind: 'data-starvation', cause: 'dataLoader', confidence: 'high' });
    expect(v.evidence.join(' ')).toMatch(/DataLoader __next__ 6\.0 ms of each 10\.0 ms step \(60%\)/);
    expect(v.next).toMatch(/num_workers/);
    // Without the GPU's idle share the loop could be waiting while queued kernels run: medium at most.
    expect(profileVerdict(profile({ stepMs: 10, dataLoaderMsPerStep: 6 }))!.confidence).toBe('medium');
    expect(profileVerdict(profile({ gpuIdleShare: 0.6, stepMs: 10, dataLoaderMsPerStep: 2 }))).toBeNull();
  });

  test('a GPU busy most of the time is not waiting on the host, however long the loader or syncs take', () => {
    const busy = BUSY_IDLE_SHARE - 0.05;
    expect(profileVerdict(profile({ gpuIdleShare: busy, stepMs: 10, dataLoaderMsPerStep: 8 }))).toBeNull();
    expect(profileVerdict(profile({ gpuIdleShare: busy, syncShare: 1, syncsPerStep: 4 }))).toBeNull();
  });

  test('idle time that follows syncs is small-kernels with cause sync: the host-sync card and fix', () => {
    const v = profileVerdict(profile({ gpuIdleShare: 0.4, syncShare: 0.7, syncsPerStep: 3, syncMsPerStep: 12 }))!;
    expect(v).toMatchObject({ kind: 'small-kernels', cause: 'sync', confidence: 'high', cardId: 'host-device-syncs' });
    expect(v.evidence.join(' ')).toMatch(/3\.0 syncs per step, 12\.0 ms in them; 70% of the GPU's idle time/);
    expect(v.next).toMatch(/\.item\(\)/);
  });

  test('sync time alone is not GPU idle time: a loop waiting 40 ms in a sync may be waiting on a busy GPU', () => {
    expect(profileVerdict(profile({ syncsPerStep: 1, syncMsPerStep: 40 }))).toBeNull();
  });

  test('idle time waiting on Python and dispatch between launches is launch-bound', () => {
    const v = profileVerdict(profile({ gpuIdleShare: 0.5, launchShare: 0.35, syncShare: 0.05 }))!;
    expect(v).toMatchObject({ kind: 'small-kernels', cause: 'launch', confidence: 'medium' });
    expect(v.next).toMatch(/CUDA Graphs/);
    // A step that already replays as a CUDA Graph is not told to capture one.
    expect(profileVerdict(profile({ gpuIdleShare: 0.5, launchShare: 0.35 }), ['cuda-graphs'])!.next).toMatch(
      /already replays/,
    );
  });

  test('kernels averaging under 10 µs with the GPU idle most of the step are launch-bound (SAM2 #768’s numbers)', () => {
    // 53.7 ms per frame, 7.27 ms of it busy, 1185 launches: 6.1 µs of GPU time per kernel.
    const v = profileVerdict(profile({ stepMs: 53.7, gpuIdleShare: 0.865, launchesPerStep: 1185 }))!;
    expect(v).toMatchObject({ kind: 'small-kernels', cause: 'launch', confidence: 'medium' });
    expect(v.evidence.join(' ')).toMatch(/1185 launches per step, 6\.1 µs of GPU time each/);
    // The same step with long kernels (100 launches: 72 µs each) is not called launch-bound by this rule.
    expect(profileVerdict(profile({ stepMs: 53.7, gpuIdleShare: 0.865, launchesPerStep: 100 }))).toBeNull();
  });
});

describe('diagnose() with a profile of the run', () => {
  test("turns the counters' can't tell into the profile's verdict, counters' evidence first", () => {
    const msgs = waitingGpu(40);
    expect(diagnose(msgs).kind).toBe('cant-tell');
    const d = diagnose(msgs, undefined, [], [profile({ gpuIdleShare: 0.55, syncShare: 0.6, syncsPerStep: 2 })]);
    expect(d).toMatchObject({ kind: 'small-kernels', cardId: 'host-device-syncs', gpus: [0] });
    expect(d.evidence[0]).toMatch(/GPU-Util averages 40%/);
    expect(d.evidence.join(' ')).toMatch(/60% of the GPU's idle time follows a sync/);
  });

  test('never overrules a verdict the counters decided', () => {
    const msgs = waitingGpu(0, { memUsedMiB: 20000, memTotalMiB: 81559 });
    const alone = diagnose(msgs);
    const withP = diagnose(msgs, undefined, [], [profile({ gpuIdleShare: 0.9, launchShare: 0.9 })]);
    expect(alone.kind).toBe('idle-allocated');
    expect(withP.kind).toBe(alone.kind);
  });
});

/** Steps of 10 ms: `hostUs` of `hostOp` on the main thread, then ten 300 µs kernels. */
function loop(hostOp: string | null, steps = 4): Ev[] {
  const ev: Ev[] = [];
  for (let s = 0; s < steps; s++) {
    const t0 = s * 10_000;
    ev.push(step(s + 1, t0, 10_000));
    if (hostOp) ev.push(cpu(hostOp, t0, 6000));
    for (let k = 0; k < 10; k++) ev.push(...launch('void gemm(float*)', t0 + 6000 + k * 302, t0 + 6001 + k * 302, 300));
  }
  return ev;
}

const report = (ev: Ev[]) => {
  const p = createTraceParser();
  p.push(traceText(ev));
  return analyzeTraces([{ label: 'rank0.json', trace: p.end() }]);
};

describe('a trace report as readings', () => {
  test('gives the per-step readings the engine needs, each from the trace', () => {
    const r = report(loop('enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__'));
    const p = traceReadings(r.ranks[0]!);
    expect(p).toMatchObject({ steps: 4, stepMs: 10, launchesPerStep: 10, syncsPerStep: 0, dataLoaderMsPerStep: 6 });
    expect(p.gpuIdleShare).toBeCloseTo(r.ranks[0]!.temporal.idlePct / 100, 6);
    expect(p.dataLoaderShare! + p.launchShare! + p.syncShare!).toBeLessThanOrEqual(1 + 1e-9);
    expect(p.source).toMatch(/rank0\.json/);
    // The trace's verdict is the engine's.
    expect(r.verdict).toMatchObject({ kind: profileVerdict(p)!.kind, confidence: profileVerdict(p)!.confidence });
  });

  test('a trace without ProfilerStep marks has null per-step readings, each with how to record them', () => {
    const r = report(loop(null).filter((e) => !String(e['name']).startsWith('ProfilerStep')));
    const p = traceReadings(r.ranks[0]!);
    for (const f of ['steps', 'stepMs', 'syncsPerStep', 'dataLoaderMsPerStep', 'launchesPerStep'] as const) {
      expect(p[f], f).toBeNull();
      expect(p.nullReasons[f], f).toMatch(/ProfilerStep#N.*prof\.step\(\)/);
    }
    expect(p.gpuIdleShare).not.toBeNull();
  });
});
