/**
 * Issue 28, "one voice in the diagnosis": the text never contradicts itself (a value shown as 80% is not
 * "below 80%") nor the lab it runs in (no cause the lab's own setup has removed).
 */
import { describe, expect, test } from 'vitest';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { procs, windowOf } from '../fixtures/messages.ts';

const GiB = 1024 ** 3;
/** 79.0, 79.1, … 80.9: values on both sides of a threshold at 80, some shown rounded up to it. */
const around = (at: number) => Array.from({ length: 20 }, (_, i) => Math.round((at - 1 + i / 10) * 10) / 10);

describe('a reading is compared as it is shown', () => {
  test('SM activity shown as 80% or more is never called "below 80%"', () => {
    for (const sm of around(80)) {
      const d = diagnose(
        windowOf([{ gpuUtilPct: 99, smActivePct: sm, tensorActivePct: 60, dramActivePct: 30, powerWatts: 600 }]),
      );
      const text = d.evidence.join('\n');
      const shown = Number(/SM activity (\d+)%/.exec(text)?.[1]);
      expect(shown, text).toBe(Math.round(sm));
      if (shown >= 80) expect(text, `SM activity ${sm}`).not.toMatch(/below 80%/);
      else expect(text, `SM activity ${sm}`).toMatch(/below 80%/);
    }
  });

  test('memory shown as 1.0 GiB allocated is never "nothing held"', () => {
    for (const gib of [0.9, 0.94, 0.95, 0.96, 0.99, 1.0, 1.04]) {
      const d = diagnose(windowOf([{ gpuUtilPct: 0, memUsedBytes: gib * GiB, processes: procs(0) }]));
      const text = `${d.title}\n${d.evidence.join('\n')}`;
      if (/1\.0 GiB allocated/.test(text)) expect(d.kind, text).not.toBe('idle');
    }
  });

  test('a busiest core shown as 85% is not an idle core in the advice', () => {
    for (const core of around(85)) {
      const d = diagnose(
        windowOf([{ gpuUtilPct: (i) => (i % 3 ? 5 : 60), memUsedBytes: 20 * GiB }], {
          throughput: { samplesPerSec: 300 },
        }).map((m) => ({
          ...m,
          host: {
            cpuPct: 10,
            perCorePct: [core, 5],
            load: { avg1: 1, avg5: 1, avg15: 1 },
            mem: { totalBytes: 1, usedBytes: 1, availableBytes: 0 },
          },
          throughput: m.throughput && { ...m.throughput, dataWaitFraction: 0.5 },
        })),
      );
      expect(d.kind).toBe('data-starvation');
      const shown = Number(/busiest CPU core (\d+)%/.exec(d.evidence.join('\n'))?.[1]);
      if (shown >= 85) expect(d.next, `core ${core}`).not.toMatch(/idle cores/);
    }
  });
});

describe("a verdict names no cause the lab's setup has removed", () => {
  const pegged = (msgs: ReturnType<typeof windowOf>) =>
    msgs.map((m) => ({
      ...m,
      host: {
        cpuPct: 8,
        perCorePct: [100, 3, 2, 4],
        load: { avg1: 1, avg5: 1, avg15: 1 },
        mem: { totalBytes: 64 * GiB, usedBytes: 8 * GiB, availableBytes: 56 * GiB },
      },
    }));
  const smallKernels = pegged(
    windowOf([{ gpuUtilPct: 97, smActivePct: 22, tensorActivePct: 11, dramActivePct: 14, powerWatts: 220 }], {
      throughput: { samplesPerSec: 900 },
    }),
  );
  const words = (d: ReturnType<typeof diagnose>) => [d.title, ...d.evidence, d.next, d.decide ?? ''].join('\n');

  test('a pegged core beside small kernels is Python launching them, unless the step replays as a CUDA Graph', () => {
    const plain = diagnose(smallKernels);
    expect(plain.kind).toBe('small-kernels');
    expect(words(plain)).toMatch(/Python launching kernels/);
    const graphs = diagnose(smallKernels, undefined, ['cuda-graphs']);
    expect(graphs.kind).toBe('small-kernels');
    expect(words(graphs)).not.toMatch(/launching kernels|launch overhead|launch gaps/);
    expect(words(graphs)).toMatch(/waiting for the GPU/);
  });

  test('with CUDA Graphs, a pegged core is no sign of progress: busy at low power without rates is "can\'t tell"', () => {
    const noRates = pegged(windowOf([{ gpuUtilPct: 99, powerWatts: 150, powerLimitWatts: 700 }]));
    expect(diagnose(noRates).kind).toBe('small-kernels');
    const graphs = diagnose(noRates, undefined, ['cuda-graphs']);
    expect(graphs.kind).toBe('cant-tell');
    expect(words(graphs)).not.toMatch(/launch/);
  });
});
