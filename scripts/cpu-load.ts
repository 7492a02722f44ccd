/**
 * Keeps every core of this machine busy (one spinning worker thread per core) until stopped, so a test run can be
 * tried on a loaded machine: `node scripts/cpu-load.ts [seconds]` (default: until Ctrl-C or SIGTERM). Each thread
 * does plain arithmetic with no I/O and no growing memory; it is the background load of the flake gate
 * (scripts/flake-gate.sh).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const seconds = Number(process.argv[2] ?? 0);
const spin = `let x = 0; for (;;) { for (let i = 0; i < 1e7; i++) x = (x * 1103515245 + 12345) % 2147483648; }`;
const workers = Array.from({ length: availableParallelism() }, () => new Worker(spin, { eval: true }));
console.error(`cpu-load: ${workers.length} busy threads${seconds ? ` for ${seconds} s` : ''} (pid ${process.pid})`);
const stop = () => {
  for (const w of workers) void w.terminate();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (seconds) setTimeout(stop, seconds * 1000);
