/**
 * The lab server's memory, split: RSS into anonymous and file pages (/proc/<pid>/status), anonymous into the
 * main malloc arena ([heap]) and other anonymous mappings (/proc/<pid>/smaps), and the process's own
 * process.memoryUsage() and V8 heap spaces as written by bench/mem-probe.cjs (preloaded by the bench only).
 * Used by bench/server.ts and bench/churn-memory.ts.
 */
import { readFileSync } from 'node:fs';

const MB = 1024 * 1024;

/** One reading of the server's memory, MB. */
export interface MemReading {
  atS: number;
  rss: number;
  anon: number;
  file: number;
  /** The main malloc arena ([heap], brk). */
  brk: number;
  /** Anonymous mappings other than [heap]: V8's pages, thread arenas, large malloc blocks. */
  anonMmap: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** V8's young generation (new_space) and old generation (old_space), resident MB. */
  newSpace: number;
  oldSpace: number;
}

/** Reads `pid`'s memory now; `probeFile` is its mem-probe output; `atS` counts from `t0` (ms since epoch). */
export function readMem(pid: number, probeFile: string, t0: number): MemReading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (re: RegExp, text: string): number => Number(re.exec(text)?.[1] ?? NaN) / 1024;
  let brk = 0;
  let anonMmap = 0;
  // smaps: a header line per mapping, then its fields; "Anonymous:" is the resident anonymous part.
  let isHeap = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) isHeap = line.endsWith('[heap]');
    else if (line.startsWith('Anonymous:')) {
      const v = Number(line.split(/\s+/)[1]) / 1024;
      if (isHeap) brk += v;
      else anonMmap += v;
    }
  }
  const lines = readFileSync(probeFile, 'utf8').trim().split('\n');
  const last = JSON.parse(lines[lines.length - 1] || '{}') as Record<string, number> & {
    spaces?: Record<string, number>;
  };
  return {
    atS: (Date.now() - t0) / 1000,
    rss: kb(/VmRSS:\s+(\d+)/, status),
    anon: kb(/RssAnon:\s+(\d+)/, status),
    file: kb(/RssFile:\s+(\d+)/, status),
    brk,
    anonMmap,
    heapTotal: (last.heapTotal ?? NaN) / MB,
    heapUsed: (last.heapUsed ?? NaN) / MB,
    external: (last.external ?? NaN) / MB,
    arrayBuffers: (last.arrayBuffers ?? NaN) / MB,
    newSpace: (last.spaces?.new_space ?? NaN) / MB,
    oldSpace: (last.spaces?.old_space ?? NaN) / MB,
  };
}

/** One line: RSS and its parts, MB. "native" is anonymous RSS less the V8 heap and external memory. */
export function describe(r: MemReading): string {
  const native = r.anon - r.heapTotal - r.external;
  const f = (x: number): string => x.toFixed(1).padStart(6);
  return `t=${r.atS.toFixed(0).padStart(4)} s  rss${f(r.rss)}  anon${f(r.anon)}  file${f(r.file)}  | brk${f(r.brk)}  mmap${f(r.anonMmap)}  | v8 heap${f(r.heapTotal)} (used${f(r.heapUsed)}, new${f(r.newSpace)}, old${f(r.oldSpace)})  external${f(r.external)}  native rest${f(native)}`;
}
