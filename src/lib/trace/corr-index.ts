/**
 * Maps and sets keyed by correlation id, the join key between a CPU launch and its GPU event. Kineto numbers
 * correlations from 0 upwards, so ids are small non-negative integers: they index a typed array directly,
 * several times faster than a `Map` on a large trace. An id outside that range (negative, e.g. -1 for "none",
 * or far beyond the trace's size) goes to a `Map`, so every id behaves exactly as in a `Map`. Pure.
 */

/** Ids below this are held densely: a few bytes per id, bounded by the trace's size. */
function denseSize(count: number, maxId: number): number {
  return Math.max(0, Math.min(maxId + 1, 4 * count + 65_536));
}

/** The largest id in `ids` (-1 when none is ≥ 0). */
export function maxId(ids: Int32Array): number {
  let m = -1;
  for (let i = 0; i < ids.length; i++) if (ids[i]! > m) m = ids[i]!;
  return m;
}

/**
 * Correlation id → row (a non-negative integer); the last `set` wins, as in a `Map`.
 * @example const m = new CorrRows(2, 7); m.set(7, 1); m.set(7, 0); m.get(7) // 0; m.get(3) // -1
 */
export class CorrRows {
  private readonly dense: Int32Array;
  private sparse: Map<number, number> | null = null;

  /** For `count` rows whose largest id is `maxId`. */
  constructor(count: number, maxId: number) {
    this.dense = new Int32Array(denseSize(count, maxId)).fill(-1);
  }

  set(id: number, row: number): void {
    if (id >= 0 && id < this.dense.length) this.dense[id] = row;
    else (this.sparse ??= new Map()).set(id, row);
  }

  /** The row set for `id`, or -1. */
  get(id: number): number {
    if (id >= 0 && id < this.dense.length) return this.dense[id]!;
    return this.sparse?.get(id) ?? -1;
  }
}

/**
 * A set of correlation ids.
 * @example const s = new CorrSet(2, 7); s.add(-1); s.add(5); s.has(-1) && s.has(5) && !s.has(6) // true
 */
export class CorrSet {
  private readonly dense: Uint8Array;
  private sparse: Set<number> | null = null;

  /** For `count` rows whose largest id is `maxId`. */
  constructor(count: number, maxId: number) {
    this.dense = new Uint8Array(denseSize(count, maxId));
  }

  add(id: number): void {
    if (id >= 0 && id < this.dense.length) this.dense[id] = 1;
    else (this.sparse ??= new Set()).add(id);
  }

  has(id: number): boolean {
    if (id >= 0 && id < this.dense.length) return this.dense[id] === 1;
    return this.sparse?.has(id) ?? false;
  }
}
