/** Seeded randomness: the same seed always gives the same quiz, on every device. */

/** 32-bit FNV-1a hash of a string. @example hashSeed('abc') // 440920331 */
export function hashSeed(seed: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small, fast PRNG; returns numbers in [0, 1). */
export function rng(seed: string): () => number {
  let a = hashSeed(seed);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shuffled copy (Fisher–Yates) using the seeded generator. */
export function shuffled<T>(items: readonly T[], seed: string): T[] {
  const out = items.slice();
  const next = rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A short random seed for a new quiz, e.g. "k3x9q2". Uses crypto when available. */
export function newSeed(): string {
  const bytes = new Uint8Array(5);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => (b % 36).toString(36)).join('') + (bytes[0]! % 10);
}

/** Accepts a seed from a URL: 1–32 letters, digits, '-' or '_'. Returns null for anything else. */
export function parseSeed(raw: string | null | undefined): string | null {
  return raw && /^[A-Za-z0-9_-]{1,32}$/.test(raw) ? raw : null;
}
