import { describe, expect, test } from 'vitest';
import { analyzeTraces, createTraceParser, TraceError, type TraceReport } from '../../src/lib/trace/index.ts';
import { cpu, launch, step, traceText, type Ev } from './trace-gen.ts';

function analyse(...traces: { events: Ev[]; extra?: Record<string, unknown> }[]): TraceReport {
  return analyzeTraces(
    traces.map(({ events, extra }, k) => {
      const p = createTraceParser();
      p.push(traceText(events, extra));
      return { label: `rank${k}.json`, trace: p.end() };
    }),
  );
}

/** Steps of `stepUs`, each launching `kernels` kernels of `kernelUs` back to back after `hostUs` of `hostOp`. */
function loop(opts: {
  steps: number;
  stepUs: number;
  kernels: number;
  kernelUs: number;
  hostUs: number;
  hostOp?: string;
}) {
  const ev: Ev[] = [];
  for (let s = 0; s < opts.steps; s++) {
    const t0 = s * opts.stepUs;
    ev.push(step(s + 1, t0, opts.stepUs));
    if (opts.hostOp) ev.push(cpu(opts.hostOp, t0, opts.hostUs));
    for (let k = 0; k < opts.kernels; k++) {
      const at = t0 + opts.hostUs + k * (opts.kernelUs + 2);
      ev.push(...launch('void ampere_sgemm_128x64_nn(float*)', at, at + 1, opts.kernelUs));
    }
  }
  return ev;
}

describe('HTA temporal breakdown', () => {
  test('idle is the span no GPU event covers; compute the compute kernels; the rest non-compute', () => {
    const r = analyse({
      events: [
        ...launch('void gemm(float*)', 0, 0, 10),
        ...launch('Memcpy HtoD (Pageable -> Device)', 5, 20, 10, 7, 'gpu_memcpy', 'cudaMemcpyAsync'),
        ...launch('ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)', 35, 40, 20, 9),
      ],
    });
    expect(r.ranks[0]!.temporal).toMatchObject({ spanUs: 60, idleUs: 20, computeUs: 10, nonComputeUs: 30 });
    expect(r.ranks[0]!.temporal.idlePct).toBe(33.33);
  });

  test('counts a device-wide sync on stream 4294967295 (uint32 -1) as HTA does: a stream, not -1', () => {
    const sync = {
      ph: 'X',
      cat: 'cuda_sync',
      name: 'Context Sync',
      pid: 0,
      tid: -1,
      ts: 100,
      dur: 20,
      args: { stream: 4294967295, correlation: 9 },
    };
    const r = analyse({ events: [...launch('void gemm(float*)', 0, 0, 10), sync] });
    expect(r.ranks[0]!.temporal).toMatchObject({ spanUs: 120, idleUs: 90, computeUs: 10, nonComputeUs: 20 });
  });

  test('leaves out the last ProfilerStep, as HTA does, when there are two or more', () => {
    const r = analyse({ events: loop({ steps: 3, stepUs: 1000, kernels: 2, kernelUs: 100, hostUs: 0 }) });
    // Steps 1 and 2 only: 4 kernels of 100 µs, the last ending at 1000 + 2 * 102 + 1 - 2 = 1203 µs.
    expect(r.ranks[0]!.kernels.kernelCount).toBe(4);
    expect(r.ranks[0]!.notes.join(' ')).toMatch(/last ProfilerStep is left out/);
    expect(r.ranks[0]!.steps.map((s) => s.step)).toEqual([1, 2, 3]);
  });
});

describe('HTA idle time per stream', () => {
  test('host wait when the launch came after the previous kernel ended; kernel wait under 30 µs; other the rest', () => {
    const r = analyse({
      events: [
        ...launch('k1', 0, 1, 10), // ends 11
        ...launch('k2', 2, 20, 10), // launched before 11, gap 9 < 30: kernel wait; ends 30
        ...launch('k3', 100, 110, 10), // launched at 100 > 30: host wait 80; ends 120
        ...launch('k4', 105, 200, 10), // launched before 120, gap 80 ≥ 30: other
      ],
    });
    const s = r.ranks[0]!.idle.streams[0]!;
    expect(s.stream).toBe(7);
    expect(s.byCategory.host_wait.us).toBe(80);
    expect(s.byCategory.kernel_wait.us).toBe(9);
    expect(s.byCategory.other.us).toBe(80);
    expect(s.byCategory.host_wait.ratio).toBeCloseTo(80 / 169);
  });
});

describe('why the host made the GPU wait', () => {
  test('a slow DataLoader __next__ before each step is data starvation, with num_workers to change', () => {
    const r = analyse({
      events: loop({
        steps: 4,
        stepUs: 10_000,
        kernels: 10,
        kernelUs: 300,
        hostUs: 6000,
        hostOp: 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__',
      }),
    });
    expect(r.verdict.kind).toBe('data-starvation');
    expect(r.verdict.confidence).toBe('high');
    expect(r.verdict.next).toMatch(/num_workers/);
    expect(r.verdict.cardIds).toContain('data-loader-bottleneck');
    expect(r.verdict.evidence.join(' ')).toMatch(/DataLoader __next__ 6\.0 ms per step/);
  });

  test('an .item() sync between launches is a host sync, with the sync calls counted per step', () => {
    const ev = loop({ steps: 4, stepUs: 10_000, kernels: 10, kernelUs: 300, hostUs: 6000, hostOp: 'aten::item' });
    for (let s = 0; s < 4; s++) ev.push(cpu('cudaStreamSynchronize', s * 10_000 + 10, 5900, 1, 'cuda_runtime'));
    const r = analyse({ events: ev });
    expect(r.verdict.cause).toBe('sync');
    expect(r.verdict.cardId).toBe('host-device-syncs');
    expect(r.ranks[0]!.steps[0]).toMatchObject({ syncCalls: 1, syncUs: 5900 });
  });

  test('many tiny kernels with launch gaps are launch-bound: CUDA Graphs or torch.compile', () => {
    const r = analyse({ events: loop({ steps: 3, stepUs: 2000, kernels: 200, kernelUs: 3, hostUs: 0 }) });
    expect(r.verdict.kind).toBe('small-kernels');
    expect(r.verdict.next).toMatch(/CUDA Graphs/);
    expect(r.ranks[0]!.launch!.under10UsShare).toBe(1);
  });

  test('a GPU that runs kernels all the time is busy, and the trace says it cannot judge further', () => {
    const r = analyse({ events: loop({ steps: 3, stepUs: 1100, kernels: 1, kernelUs: 1100, hostUs: 0 }) });
    expect(r.verdict.cause).toBe('busy');
    expect(r.verdict.decide).toMatch(/SM activity/);
  });
});

describe('across ranks', () => {
  const rank = (r: number, kernelUs: number) => ({
    events: [
      ...loop({ steps: 3, stepUs: 1000, kernels: 2, kernelUs, hostUs: 0 }),
      ...launch('ncclDevKernel_AllReduce(ncclDevComm*)', 900, 2 * kernelUs + 10, 950 - 2 * kernelUs, 9),
    ],
    extra: { distributedInfo: { rank: r, world_size: 3 } },
  });

  test('names the slowest rank and what the others wait in NCCL', () => {
    const r = analyse(rank(0, 200), rank(1, 400), rank(2, 200));
    expect(r.verdict.kind).toBe('straggler');
    expect(r.across!.slowestRank).toBe(1);
    expect(r.across!.slowestByRatio).toBeCloseTo(2);
    expect(r.verdict.evidence.join(' ')).toMatch(/rank 0 spends .* in NCCL/);
  });

  test('refuses two files of the same rank, naming both', () => {
    expect(() => analyse(rank(1, 200), rank(1, 200))).toThrow(
      /Rank 1 appears twice: in rank0\.json and in rank1\.json/,
    );
  });

  test('warns about ranks missing from the world size', () => {
    const r = analyse(rank(0, 200), rank(2, 200));
    expect(r.warnings.join(' ')).toMatch(/no trace for rank 1/);
  });
});

describe('traces without GPU activity', () => {
  test('a CPU-only trace says there is no GPU activity and how to record it', () => {
    const e = (() => {
      try {
        analyse({ events: [step(1, 0, 100), cpu('aten::mm', 1, 50)] });
      } catch (x) {
        return x as TraceError;
      }
      throw new Error('analysed');
    })();
    expect(e.code).toBe('no-gpu');
    expect(e.message).toMatch(/No GPU activity in this trace.*ProfilerActivity\.CUDA/);
  });
});
