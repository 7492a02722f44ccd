/** The host probe: CPU per core, memory and load from /proc, read no more often than they change. */
import { describe, expect, test } from 'vitest';
import { createHostProbe, parseMeminfo } from '../../server/host.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');

describe('host probe', () => {
  test('per-core utilization is the busy share between two reads', () => {
    const stats = [
      'cpu  0 0 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n',
      'cpu  0 0 0 0 0 0 0 0\ncpu0 200 0 200 800 0 0 0 0\ncpu1 10 0 0 1090 0 0 0 0\n',
    ];
    let i = 0;
    const probe = createHostProbe({
      stat: () => stats[Math.min(i++, 1)] ?? null,
      meminfo: () => 'MemTotal:       16384000 kB\nMemFree:         1000000 kB\nMemAvailable:    8192000 kB\n',
      loadavg: () => [1.234, 0.5, 0.25],
    });
    probe.sample(T0);
    const s = probe.sample(T0 + 1000);
    expect(s.perCorePct).toEqual([100, 10]); // core 0 pegged, core 1 at 10%
    expect(s.cpuPct).toBe(55);
    expect(s.load).toEqual({ avg1: 1.23, avg5: 0.5, avg15: 0.25 });
    expect(s.mem).toEqual({ totalBytes: 16384000 * 1024, availableBytes: 8192000 * 1024, usedBytes: 8192000 * 1024 });
    expect(parseMeminfo('garbage')).toBeNull();
  });

  test('CPU is read over windows of at least 250 ms, memory and load at most once a second', () => {
    const reads = { stat: 0, meminfo: 0, loadavg: 0 };
    let availableKb = 8192000;
    const probe = createHostProbe({
      stat: () => {
        reads.stat++;
        return `cpu  0 0 0 0 0 0 0 0\ncpu0 ${reads.stat * 10} 0 0 1000 0 0 0 0\n`;
      },
      meminfo: () => {
        reads.meminfo++;
        return `MemTotal:       16384000 kB\nMemAvailable:    ${availableKb} kB\n`;
      },
      loadavg: () => {
        reads.loadavg++;
        return [1, 1, 1];
      },
    });
    const first = probe.sample(T0);
    availableKb = 4096000;
    for (let t = 100; t < 1000; t += 100)
      expect(probe.sample(T0 + t).mem.availableBytes).toBe(first.mem.availableBytes);
    expect(probe.sample(T0 + 1000).mem.availableBytes).toBe(4096000 * 1024);
    // Samples every 100 ms from 0 to 1000: CPU read at 0, 300, 600 and 900; memory and load at 0 and 1000.
    expect(reads).toEqual({ stat: 4, meminfo: 2, loadavg: 2 });
  });
});
