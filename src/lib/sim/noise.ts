/**
 * Deterministic noise for the simulator: a pure function of (seed, channel, time), so the same
 * scenario at the same time looks the same in the server and in the page, with no state kept.
 */

import { hashSeed } from '../random.ts';

/** 32-bit FNV-1a hash of a string (the same hash that seeds quizzes). @example hashString('idle') */
export const hashString: (text: string) => number = hashSeed;

/** Mixes integers into a uniform number in [0, 1) (a murmur3-style finaliser). */
export function hash01(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b | 0, 0xc2b2ae35) ^ Math.imul(c | 0, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Splits a possibly huge integer (epoch-ms buckets) into two 32-bit halves that hash well. */
function bucketHash(seed: number, channel: number, bucket: number): number {
  const hi = Math.floor(bucket / 4294967296);
  return hash01(seed ^ Math.imul(hi, 0x632be5ab), channel, bucket >>> 0);
}

/**
 * Smooth value noise in [-1, 1]: random knots every `periodMs`, eased between them.
 * @example smoothNoise(seed, 3, tMs, 2000) // drifts slowly, same value for the same inputs
 */
export function smoothNoise(seed: number, channel: number, tMs: number, periodMs: number): number {
  const x = tMs / periodMs;
  const i = Math.floor(x);
  const f = x - i;
  const a = bucketHash(seed, channel, i);
  const b = bucketHash(seed, channel, i + 1);
  const eased = f * f * (3 - 2 * f);
  return (a + (b - a) * eased) * 2 - 1;
}

/** Jitter that changes every `stepMs` (default 100 ms): like sensor noise, in [-1, 1]. */
export function stepNoise(seed: number, channel: number, tMs: number, stepMs = 100): number {
  return bucketHash(seed, channel + 7919, Math.floor(tMs / stepMs)) * 2 - 1;
}

/**
 * Share of a window that a periodic square wave spends "on": busy for `busyMs` at the start of
 * every `periodMs`, measured over the `windowMs` ending at `tMs`. Exact, so sawtooth readings
 * (a GPU waiting for data) come out the way NVML's time-fraction counter would show them.
 */
export function busyFraction(tMs: number, periodMs: number, busyMs: number, windowMs: number): number {
  if (busyMs >= periodMs) return 1;
  if (busyMs <= 0) return 0;
  const onTime = (x: number): number =>
    Math.floor(x / periodMs) * busyMs + Math.min(x - Math.floor(x / periodMs) * periodMs, busyMs);
  return Math.min(1, Math.max(0, (onTime(tMs) - onTime(tMs - windowMs)) / windowMs));
}

/** Clamps to [lo, hi]. */
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
