/**
 * Gives memory back after a burst of connections (issue 13: 500 churning SSE clients).
 *
 * Measured with `node bench/churn-memory.ts`: during the churn V8 grows its young generation to its
 * maximum (new_space 0.3 → ~52 MB resident) and the old generation by ~9 MB; once the churn ends the
 * heap holds ~12 MB of live objects, but V8 shrinks the young generation only at its next GC, and at the
 * idle server's allocation rate (~0.3 MB/s at 10 Hz) that GC is one to two minutes away: RSS stayed
 * 143 → 151 MB for 60 s (warm 80 MB). One memory-reducing GC (V8's "last-resort" full GC: compacts,
 * shrinks the young generation) brought RSS from 154 to 89 MB within 5 s. What then stays above warm is
 * malloc memory that glibc keeps after the churn frees it (anonymous memory outside V8's heap ~5 → 15–22 MB;
 * malloc_trim(0) in a bench-only run gave 8–13 MB of it back; MALLOC_ARENA_MAX=2 and
 * MALLOC_TRIM_THRESHOLD_=131072 did not): see server/README.md.
 *
 * So: after at least `minConnections` connections have closed, once no connection has opened or closed
 * for `quietMs`, run that GC once. Closed connections, not opened ones: 100 tabs that open and stay are
 * no burst to clean up after, and their streams should not pause for a GC 5 s after they connect. A lab
 * with a few tabs never reaches the threshold, and the GC's pause (82.8 ms for one on a small heap in a
 * lone Node process, 2-core VM) lands only once the burst is over.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { HubClock } from './stream.ts';

/** Connections closed since the last GC before a quiet spell triggers one. */
export const SETTLE_MIN_CONNECTIONS = 100;
/** How long without a new connection counts as the burst being over, ms. */
export const SETTLE_QUIET_MS = 5000;

/** Options for `createMemorySettler`. */
export interface SettlerOptions {
  /** Gives memory back (the server passes `memoryReducingGc()`). */
  reduce: () => void;
  minConnections?: number;
  quietMs?: number;
  clock: HubClock;
}

/** Counts closed connections; runs `reduce` once per burst, when it is over. */
export interface MemorySettler {
  /** Call when a connection opens. */
  opened(): void;
  /** Call when a connection closes. */
  closed(): void;
  /** Stops the quiet check. */
  close(): void;
}

/** Creates the settler; its check runs (every quietMs / 5) only while a burst may be under way. */
export function createMemorySettler(options: SettlerOptions): MemorySettler {
  const min = options.minConnections ?? SETTLE_MIN_CONNECTIONS;
  const quietMs = options.quietMs ?? SETTLE_QUIET_MS;
  const { clock } = options;
  let count = 0;
  let lastMs = 0;
  let stop: (() => void) | null = null;
  const check = (): void => {
    if (clock.now() - lastMs < quietMs) return;
    stop?.();
    stop = null;
    const burst = count >= min;
    count = 0;
    if (burst) options.reduce();
  };
  return {
    opened() {
      lastMs = clock.now();
    },
    closed() {
      count++;
      lastMs = clock.now();
      stop ??= clock.every(Math.max(10, Math.floor(quietMs / 5)), check);
    },
    close() {
      stop?.();
      stop = null;
    },
  };
}

/**
 * V8's memory-reducing full GC ("last-resort": compacts and shrinks the young generation), without
 * exposing `gc` to the server's code: the flag is on only while a fresh context is made to fetch it.
 */
export function memoryReducingGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: string; execution: string; flavor: string }) => void;
  setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
