/**
 * HTA's real test traces (test/fixtures/trace/README.md), against HTA's own figures for them: the temporal
 * breakdown HTA prints (percent, 2 decimals) and its idle time per stream and category (µs).
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { analyzeTraces, parseTraceStream, TraceError } from '../../src/lib/trace/index.ts';
import { runTrace } from '../../scripts/trace.ts';

const dir = join(import.meta.dirname, '../fixtures/trace');
const read = (f: string) =>
  parseTraceStream(Readable.toWeb(createReadStream(join(dir, f))) as ReadableStream<Uint8Array>);

async function report(f: string) {
  return analyzeTraces([{ label: f, trace: await read(f) }]);
}

const idleUs = (r: Awaited<ReturnType<typeof report>>) =>
  Object.fromEntries(
    r.ranks[0]!.idle.streams.map((s) => [
      s.stream,
      [s.byCategory.host_wait.us, s.byCategory.kernel_wait.us, s.byCategory.other.us],
    ]),
  );

describe("HTA's figures on HTA's traces", () => {
  test('a distributed CUDA training rank: temporal breakdown and idle per stream as HTA gives them', async () => {
    const r = await report('hta-sampled-rank-0.json.gz');
    expect(r.ranks[0]!.temporal).toMatchObject({
      idlePct: 53.56,
      computePct: 17.71,
      nonComputePct: 28.74,
      spanUs: 600058,
    });
    expect(idleUs(r)).toEqual({
      7: [213825, 1985, 261740],
      23: [596037, 70, 34],
      25: [0, 9, 47865],
      84: [148934, 6, 0],
      203: [0, 0, 0],
    });
    expect(r.ranks[0]!.meta.rank).toBe(0);
  });

  test('an AMD ROCm trace with nanosecond timestamps: read as HTA reads it, and the page says what was read', async () => {
    const r = await report('hta-rocm-mi250.json.gz');
    const rank = r.ranks[0]!;
    expect(rank.platform).toBe('rocm');
    expect(rank.meta.resolution).toBe('ns');
    expect(rank.temporal).toMatchObject({ idlePct: 98.53, computePct: 1.08, nonComputePct: 0.39, spanUs: 8911 });
    expect(idleUs(r)).toEqual({ 0: [8780, 0, 0] });
    expect(rank.notes.join(' ')).toMatch(/AMD ROCm trace.*read as for CUDA/);
    expect(rank.notes.join(' ')).toMatch(/nanosecond resolution/);
    // ProfilerStep#1 is marked twice in this trace; each step is listed once.
    expect(rank.steps.map((s) => s.step)).toEqual([1, 2]);
  });

  test('a CPU-only trace has no GPU activity', async () => {
    await expect(report('hta-cpu-only.json.gz')).rejects.toMatchObject({ code: 'no-gpu' });
    await expect(report('hta-cpu-only.json.gz')).rejects.toBeInstanceOf(TraceError);
  });
});

describe('npm run trace', () => {
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runTrace(
      argv,
      (s) => (out += s),
      (s) => (err += s),
    );
    return { code, out, err };
  };

  test('prints JSON with the verdict, temporal, idle, steps and ranks, and exits 0', async () => {
    const { code, out } = await run(join(dir, 'hta-sampled-rank-0.json.gz'), '--json');
    expect(code).toBe(0);
    const j = JSON.parse(out) as Record<string, unknown> & { verdict: { kind: string; confidence: string } };
    expect(Object.keys(j)).toEqual(expect.arrayContaining(['verdict', 'temporal', 'idle', 'steps', 'ranks']));
    expect(j.verdict.kind).toBeTypeOf('string');
    expect(['high', 'medium', 'low']).toContain(j.verdict.confidence);
  });

  test('exits 3 on a trace with no GPU activity, saying so', async () => {
    const { code, err } = await run(join(dir, 'hta-cpu-only.json.gz'));
    expect(code).toBe(3);
    expect(err).toMatch(/No GPU activity/);
  });

  test('exits 1 on a missing file, an unknown flag, or no file at all', async () => {
    expect((await run('nope.json.gz')).err).toMatch(/no such file/);
    expect((await run('nope.json.gz')).code).toBe(1);
    expect((await run('--frobnicate', join(dir, 'hta-cpu-only.json.gz'))).code).toBe(1);
    expect((await run()).err).toMatch(/give at least one trace file/);
  });

  test('exits 1 on a file that is not a trace, with the reason', async () => {
    const { code, err } = await run(join(dir, 'README.md'));
    expect(code).toBe(1);
    expect(err).toMatch(/not JSON/);
  });
});
