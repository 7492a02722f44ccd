import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GpuSampleSchema } from '../../src/protocol/metrics.ts';
import { NvmlError } from '../../server/nvml/errors.ts';
import { openNvml } from '../../server/nvml/binding.ts';
import { openDevice, readDevice, releaseDevice } from '../../server/nvml/device.ts';
import { resolveSource } from '../../server/sources/index.ts';
import { createSampler } from '../../server/sampler.ts';
import { createNvmlSource } from '../../server/sources/nvml.ts';
import type { HostProbe } from '../../server/host.ts';
import { buildStubs, haveGcc, type StubKit } from '../fixtures/nvml-stub/build.ts';

const GIB = 1024 ** 3;
const T0 = Date.parse('2026-03-29T01:30:00+01:00');
const fakeHost: HostProbe = {
  sample: () => ({
    cpuPct: 5,
    perCorePct: [5, 5],
    load: { avg1: 0.1, avg5: 0.1, avg15: 0.1 },
    mem: { totalBytes: 8 * GIB, usedBytes: GIB, availableBytes: 7 * GIB },
  }),
};
const quiet = { host: fakeHost, log: () => {} };

const gcc = haveGcc();
let kit: StubKit;
beforeAll(() => {
  // gcc is on every machine this project supports; without it these tests fail loudly rather than skip.
  if (!gcc) throw new Error('gcc not found: install gcc to compile the NVML stub the binding tests run against.');
  kit = buildStubs();
});
afterAll(() => kit?.dispose());

describe('NVML binding against the C stub', () => {
  test('reads every metric of 3 GPUs, with GPM from the second tick', () => {
    const source = createNvmlSource({ libraryPath: kit.withConfig({ gpus: 3, procs: 2 }), ...quiet });
    try {
      expect(source.simulated).toBe(false);
      expect(source.driverVersion).toBe('999.99.stub');
      expect(source.devices().map((d) => d.uuid)).toEqual(
        [0, 1, 2].map((i) => `GPU-00000000-0000-0000-0000-00000000000${i}`),
      );
      expect(source.devices()[0]).toMatchObject({
        name: 'NVIDIA H100 80GB HBM3',
        smClockMaxMhz: 1980,
        memClockMaxMhz: 2619,
        gpmSupported: true,
        memTotalBytes: 80 * GIB,
      });
      const first = source.read(T0);
      expect(first.gpus).toHaveLength(3);
      const g1 = GpuSampleSchema.parse(first.gpus[1]);
      expect(g1).toMatchObject({
        error: null,
        gpuUtilPct: 51,
        memUtilPct: 21,
        memUsedBytes: 11 * GIB,
        memTotalBytes: 80 * GIB,
        memReservedBytes: 512 * 1024 * 1024,
        powerWatts: 301,
        powerLimitWatts: 700,
        temperatureC: 61,
        smClockMhz: 1979,
        memClockMhz: 2619,
        pcieTxBytesPerSec: 2000 * 1024,
        pcieRxBytesPerSec: 4000 * 1024,
        clockEventReasons: ['SwPowerCap', 'SwThermalSlowdown'],
      });
      expect(g1.processes).toEqual([
        { pid: 1100, name: null, usedGpuMemBytes: GIB },
        { pid: 1101, name: null, usedGpuMemBytes: null }, // NVML_VALUE_NOT_AVAILABLE is null, never a huge number
      ]);
      expect(g1.smActivePct).toBeNull();
      expect(g1.nullReasons['smActivePct']).toMatch(/two samples/);
      const second = GpuSampleSchema.parse(source.read(T0 + 500).gpus[1]);
      expect(second).toMatchObject({
        smActivePct: 43.5,
        smOccupancyPct: 21.3,
        tensorActivePct: 12.5,
        dramActivePct: 33,
        fp32ActivePct: 7.5,
        fp16ActivePct: 1.5,
        fp64ActivePct: null,
      });
      expect(second.nullReasons['fp64ActivePct']).toBe('not supported (NVML 3)');
    } finally {
      source.close();
    }
  });

  test('the power limit and the process list are asked once a second, other metrics every tick', () => {
    const nvml = openNvml({ libraryPath: kit.withConfig({ gpus: 1, procs: 2 }) });
    const calls = new Map<string, number>();
    const counted = new Proxy(nvml, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          calls.set(String(key), (calls.get(String(key)) ?? 0) + 1);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    try {
      const state = openDevice(counted, 0);
      calls.clear();
      // 10 Hz for 2.5 s: 25 ticks, slow queries at 0, 1000 and 2000 ms.
      const samples = Array.from({ length: 25 }, (_, i) => readDevice(counted, state, T0 + i * 100));
      expect(calls.get('utilization')).toBe(25);
      expect(calls.get('powerLimitWatts')).toBe(3);
      expect(calls.get('processes')).toBe(3);
      // Between the slow reads every tick still carries the last answer, never null.
      expect(samples.every((s) => s.powerLimitWatts === 700 && s.processes?.length === 2)).toBe(true);
      // GPM rotates its sample buffers: every pair gives values (the stub refuses a backwards pair).
      expect(
        samples
          .slice(1)
          .map((s) => s.smActivePct)
          .filter((v) => v === null),
      ).toEqual([]);
      // A clock that goes backwards (NTP step) asks again rather than serving stale answers for long.
      readDevice(counted, state, T0 - 60_000);
      expect(calls.get('processes')).toBe(4);
      releaseDevice(counted, state);
    } finally {
      nvml.close();
    }
  });

  test('GPM at --interval 100 with timer jitter (94–106 ms): 0 null SM, tensor or DRAM readings over 300 ticks', () => {
    const nvml = openNvml({ libraryPath: kit.withConfig({ gpus: 1 }) });
    try {
      const state = openDevice(nvml, 0);
      let t = T0;
      readDevice(nvml, state, t); // the first tick has no earlier sample to measure from
      const nulls: number[] = [];
      const windows: number[] = [];
      for (let i = 1; i <= 300; i++) {
        t += 94 + ((i * 7) % 13); // deterministic gaps of 94–106 ms, many under 100
        const s = readDevice(nvml, state, t);
        if (s.smActivePct === null || s.tensorActivePct === null || s.dramActivePct === null) nulls.push(i);
        windows.push(state.gpm.lastWindowMs ?? 0);
      }
      expect(nulls).toEqual([]);
      // Each window is at least the 100 ms NVML wants, once an older sample exists (tick 1 may be a few ms short).
      expect(windows.slice(1).filter((w) => w < 100)).toEqual([]);
      expect(Math.min(...windows)).toBeGreaterThanOrEqual(90);
      expect(Math.max(...windows)).toBeLessThanOrEqual(212);
      releaseDevice(nvml, state);
    } finally {
      nvml.close();
    }
  });

  test('the same through the sampler at --interval 100 (8 GPUs, jittered clock): every tick after the first has GPM', () => {
    const source = createNvmlSource({ libraryPath: kit.withConfig({ gpus: 8 }), ...quiet });
    let t = T0;
    let i = 0;
    const sampler = createSampler({ source, intervalMs: 100, now: () => (t += 94 + ((i++ * 5) % 13)) });
    try {
      const ticks = Array.from({ length: 301 }, () => sampler.tick().message);
      const holes = ticks
        .slice(1)
        .flatMap((m) =>
          m.gpus.filter((g) => g.smActivePct === null || g.tensorActivePct === null || g.dramActivePct === null),
        ).length;
      expect(holes).toBe(0);
    } finally {
      sampler.close();
    }
  });

  test('NOT_SUPPORTED metrics are null with a reason, never 0, and are asked only once', () => {
    const logs: string[] = [];
    const source = createNvmlSource({
      libraryPath: kit.withConfig({ gpus: 2, unsupported: 'power,temperature,pcie,gpm,procs' }),
      host: fakeHost,
      log: (m) => logs.push(m),
    });
    try {
      for (let i = 0; i < 3; i++) {
        const g = GpuSampleSchema.parse(source.read(T0 + i * 500).gpus[0]);
        expect(g.gpuUtilPct).toBe(50);
        for (const field of [
          'powerWatts',
          'temperatureC',
          'pcieTxBytesPerSec',
          'pcieRxBytesPerSec',
          'processes',
        ] as const) {
          expect(g[field], field).toBeNull();
          expect(g.nullReasons[field], field).toBe('not supported (NVML 3)');
        }
        expect(g.smActivePct).toBeNull();
        expect(g.nullReasons['smActivePct']).toMatch(/Hopper or newer/);
      }
      expect(source.devices()[0]?.gpmSupported).toBe(false);
      expect(logs.filter((l) => l.includes('GPU 0: power unavailable'))).toHaveLength(1);
    } finally {
      source.close();
    }
  });

  test('an old driver: unversioned fallbacks work, missing symbols cost only their metrics', () => {
    const lib = kit.withConfig({ gpus: 2, procs: 1 }, kit.legacy);
    const nvml = openNvml({ libraryPath: lib });
    try {
      expect(nvml.symbols).toMatchObject({
        init: 'nvmlInit',
        count: 'nvmlDeviceGetCount',
        handle: 'nvmlDeviceGetHandleByIndex',
        memory: 'nvmlDeviceGetMemoryInfo',
        reasons: 'nvmlDeviceGetCurrentClocksThrottleReasons',
        processes: 'nvmlDeviceGetComputeRunningProcesses',
      });
    } finally {
      nvml.close();
    }
    const source = createNvmlSource({ libraryPath: lib, ...quiet });
    try {
      const g = GpuSampleSchema.parse(source.read(T0).gpus[1]);
      expect(g).toMatchObject({
        gpuUtilPct: 51,
        memUsedBytes: 11.5 * GIB,
        memReservedBytes: null,
        clockEventReasons: ['SwPowerCap', 'SwThermalSlowdown'],
      });
      expect(g.processes).toEqual([{ pid: 1100, name: null, usedGpuMemBytes: GIB }]);
      expect(g.pcieTxBytesPerSec).toBeNull();
      expect(g.nullReasons['pcieTxBytesPerSec']).toBe(
        'function not in this NVML (NVML 13: nvmlDeviceGetPcieThroughput)',
      );
      expect(g.nullReasons['smActivePct']).toMatch(/GPM is missing from this NVML/);
      expect(g.nullReasons['memReservedBytes']).toMatch(/MemoryInfo_v2/);
    } finally {
      source.close();
    }
  });

  test('a GPU lost mid-stream is reported lost while the others go on', () => {
    const source = createNvmlSource({ libraryPath: kit.withConfig({ gpus: 3, lost_gpu: 1, lost_after: 2 }), ...quiet });
    try {
      const ticks = Array.from({ length: 5 }, (_, i) => source.read(T0 + i * 500));
      expect(ticks.slice(0, 2).every((t) => t.gpus[1]?.error === null && t.gpus[1]?.gpuUtilPct === 51)).toBe(true);
      for (const t of ticks.slice(2)) {
        const lost = GpuSampleSchema.parse(t.gpus[1]);
        expect(lost.error).toMatch(/GPU is lost \(NVML 15: GPU is lost\).*Xid 79/);
        expect(lost.gpuUtilPct).toBeNull();
        expect(lost.nullReasons['powerWatts']).toBe('GPU is lost');
        expect(lost.uuid).toBe('GPU-00000000-0000-0000-0000-000000000001');
        expect(t.gpus[0]?.gpuUtilPct).toBe(50);
        expect(t.gpus[2]?.gpuUtilPct).toBe(52);
        expect(t.gpus[2]?.smActivePct).toBe(44.5);
      }
    } finally {
      source.close();
    }
  });

  test('INSUFFICIENT_SIZE on the process list: the buffer grows and the call is retried', () => {
    const source = createNvmlSource({ libraryPath: kit.withConfig({ gpus: 1, procs: 20, procs_grow: 1 }), ...quiet });
    try {
      const procs = source.read(T0).gpus[0]?.processes;
      expect(procs).toHaveLength(21); // 20 when first asked, one more started before the retry
      expect(procs?.[20]?.pid).toBe(1020);
    } finally {
      source.close();
    }
  });

  test('nvmlInit failing becomes an NvmlError; auto falls back to simulation and says why', async () => {
    const lib = kit.withConfig({ init: 9 });
    expect(() => openNvml({ libraryPath: lib })).toThrowError(NvmlError);
    try {
      openNvml({ libraryPath: lib });
    } catch (e) {
      expect(e).toMatchObject({ code: 9, nvmlName: 'DRIVER_NOT_LOADED', fn: 'nvmlInit_v2' });
      expect((e as Error).message).toMatch(/^NVIDIA driver not loaded \(NVML 9: Driver Not Loaded\).*nvidia-smi/);
    }
    const auto = await resolveSource('auto', { libraryPath: lib, ...quiet });
    try {
      expect(auto.simulated).toBe(true);
      expect(auto.id).toBe('sim:idle');
      expect(auto.reason).toMatch(/Driver Not Loaded/);
    } finally {
      auto.close();
    }
  });

  test('a missing library is LIBRARY_NOT_FOUND with what to install', () => {
    try {
      openNvml({ libraryPath: `${kit.dir}/no-such-libnvidia-ml.so.1` });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NvmlError);
      expect(e).toMatchObject({ code: 12, nvmlName: 'LIBRARY_NOT_FOUND' });
      expect((e as Error).message).toMatch(/install the NVIDIA driver, or set SATURATE_NVML_LIB/);
    }
  });
});
