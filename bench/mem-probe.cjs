/**
 * Bench-only preload (`node --require ./bench/mem-probe.cjs server/bin.mjs …`, used by bench/churn-memory.ts):
 * appends the process's `process.memoryUsage()` and each V8 heap space's resident size as one JSON line every 500 ms to the file named by
 * SATURATE_MEM_PROBE, so the bench can split RSS into V8 heap, external buffers and the rest without the server
 * exposing its memory. On SIGUSR2 it runs V8's memory-reducing full GC when Node was started with --expose-gc, and glibc's
 * malloc_trim(0) SATURATE_MEM_PROBE_TRIM_MS later when that is set. Never loaded in production.
 */
'use strict';
const { appendFileSync } = require('node:fs');
const { getHeapSpaceStatistics } = require('node:v8');

const file = process.env.SATURATE_MEM_PROBE;
if (file) {
  const timer = setInterval(() => {
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
    try {
      appendFileSync(file, JSON.stringify({ atMs: Date.now(), ...process.memoryUsage(), spaces }) + '\n');
    } catch {
      clearInterval(timer); // the bench is over and has removed its folder
    }
  }, 500);
  timer.unref();
  process.on('SIGUSR2', () => {
    // SATURATE_MEM_PROBE_TRIM_MS: glibc's malloc_trim(0) that many ms later (free malloc memory back to the OS).
    const trimMs = Number(process.env.SATURATE_MEM_PROBE_TRIM_MS);
    if (trimMs > 0)
      setTimeout(() => {
        const koffi = require('koffi');
        koffi.load('libc.so.6').func('int malloc_trim(size_t)')(0);
      }, trimMs);
    // 'last-resort': V8's memory-reducing full GC (compacts, shrinks the young generation), not a plain gc().
    if (typeof globalThis.gc === 'function') globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  });
}
