/**
 * Host CPU and memory beside the GPUs: half of every data-loader diagnosis.
 *
 * State: the previous per-core CPU counters; utilization is the busy share between two calls,
 * so the first call after creation reports the share since boot. Reads /proc on Linux
 * (cheap, no process spawned) and falls back to `os.cpus()` / `os.freemem()` elsewhere.
 */
import { openSync, readSync } from 'node:fs';
import os from 'node:os';
import type { HostSample } from '../src/protocol/metrics.ts';
import { isStale } from '../src/lib/stale.ts';

interface CoreTimes {
  busy: number;
  total: number;
}

/** Where the probe reads from; tests pass fixed text. */
export interface HostReaders {
  /** Contents of /proc/stat, or null when unavailable. */
  stat(): string | null;
  /** Contents of /proc/meminfo, or null when unavailable. */
  meminfo(): string | null;
  loadavg(): number[];
}

/**
 * Reads a /proc file through one fd kept open: /proc regenerates the text on each read at offset
 * 0, and skipping open/close halves the cost per tick. Reads at most 64 KiB (the cpu lines of
 * /proc/stat come first, before the long "intr" line).
 */
function procFile(path: string): () => string | null {
  let fd: number | null = null;
  const buf = Buffer.alloc(64 * 1024);
  return () => {
    try {
      fd ??= openSync(path, 'r');
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.toString('latin1', 0, n);
    } catch {
      return null;
    }
  };
}

const procStat = procFile('/proc/stat');
const procMeminfo = procFile('/proc/meminfo');
const procLoadavg = procFile('/proc/loadavg');

/** The real machine. */
export const systemReaders: HostReaders = {
  stat: () => (process.platform === 'linux' ? procStat() : null),
  meminfo: () => (process.platform === 'linux' ? procMeminfo() : null),
  loadavg: () => {
    // "0.52 0.58 0.59 1/467 12345" through the open fd; os.loadavg() opens the file each time.
    const text = process.platform === 'linux' ? procLoadavg() : null;
    const avgs = text?.split(' ', 3).map(Number);
    return avgs?.length === 3 && avgs.every(Number.isFinite) ? avgs : os.loadavg();
  },
};

/** Per-core busy/total jiffies from /proc/stat ("cpuN user nice system idle iowait irq softirq steal"). */
export function parseProcStat(text: string): CoreTimes[] {
  const cores: CoreTimes[] = [];
  for (const line of text.split('\n', 4096)) {
    if (!/^cpu\d+ /.test(line)) {
      if (cores.length > 0) break; // the per-core lines are contiguous near the top
      continue;
    }
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
    const idleAll = idle + iowait;
    const total = user + nice + system + idleAll + irq + softirq + steal;
    cores.push({ busy: total - idleAll, total });
  }
  return cores;
}

function osCoreTimes(): CoreTimes[] {
  return os.cpus().map(({ times: t }) => {
    const total = t.user + t.nice + t.sys + t.idle + t.irq;
    return { busy: total - t.idle, total };
  });
}

/** Total and available bytes from /proc/meminfo (kB lines). */
export function parseMeminfo(text: string): { totalBytes: number; availableBytes: number } | null {
  const kb = (key: string): number | null => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m?.[1] ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable') ?? kb('MemFree');
  return total === null || available === null ? null : { totalBytes: total, availableBytes: available };
}

/** A probe that reports CPU use since its previous call. */
export interface HostProbe {
  /** The host now; `nowMs` (default Date.now()) decides whether memory and load are read again. */
  sample(nowMs?: number): HostSample;
}

/**
 * Memory and load are read at most this often; ticks between reuse them. The kernel updates the
 * load average every 5 s, and memory moves slowly next to CPU use, which is read on every tick.
 */
export const HOST_SLOW_MS = 1000;
/**
 * CPU use is measured over windows of at least this long; faster ticks reuse the last window's
 * figures. /proc/stat counts in jiffies of 10 ms, so a 100 ms window holds 10 per core and moves in
 * steps of 10%: shorter windows would add noise, not detail (and reading /proc/stat is the probe's cost).
 */
export const HOST_CPU_WINDOW_MS = 250;

const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Creates a host probe; pass `readers` to read fixed text in tests. CPU is read at most every
 * HOST_CPU_WINDOW_MS, memory and load at most every HOST_SLOW_MS; samples between reuse them.
 */
export function createHostProbe(readers: HostReaders = systemReaders): HostProbe {
  let previous: CoreTimes[] = [];
  let cpu: { atMs: number; cpuPct: number; perCorePct: number[] } | null = null;
  let slow: { atMs: number; mem: HostSample['mem']; load: HostSample['load'] } | null = null;
  const readCpu = (atMs: number): NonNullable<typeof cpu> => {
    const stat = readers.stat();
    const now = stat ? parseProcStat(stat) : osCoreTimes();
    const perCorePct = now.map((c, i) => {
      const p = previous[i];
      const dTotal = c.total - (p?.total ?? 0);
      const dBusy = c.busy - (p?.busy ?? 0);
      return dTotal > 0 ? round1(Math.min(100, Math.max(0, (100 * dBusy) / dTotal))) : 0;
    });
    previous = now;
    const cpuPct = perCorePct.length ? round1(perCorePct.reduce((a, b) => a + b, 0) / perCorePct.length) : 0;
    return { atMs, cpuPct, perCorePct };
  };
  const readSlow = (atMs: number): NonNullable<typeof slow> => {
    const info = readers.meminfo();
    const mem = (info ? parseMeminfo(info) : null) ?? { totalBytes: os.totalmem(), availableBytes: os.freemem() };
    const [avg1 = 0, avg5 = 0, avg15 = 0] = readers.loadavg();
    return {
      atMs,
      load: { avg1: round2(avg1), avg5: round2(avg5), avg15: round2(avg15) },
      mem: {
        totalBytes: mem.totalBytes,
        usedBytes: mem.totalBytes - mem.availableBytes,
        availableBytes: mem.availableBytes,
      },
    };
  };
  return {
    sample(nowMs = Date.now()) {
      if (isStale(cpu, nowMs, HOST_CPU_WINDOW_MS)) cpu = readCpu(nowMs);
      if (isStale(slow, nowMs, HOST_SLOW_MS)) slow = readSlow(nowMs);
      const c = cpu as NonNullable<typeof cpu>;
      const m = slow as NonNullable<typeof slow>;
      return { cpuPct: c.cpuPct, perCorePct: [...c.perCorePct], load: { ...m.load }, mem: { ...m.mem } };
    },
  };
}
