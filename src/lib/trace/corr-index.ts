/**
 * Maps and sets keyed by correlation id, the join key between a CPU launch and its GPU event. Kineto numbers
 * correlations upwards from some start, so a trace's ids fill a range about as long as its events: they index a
 * typed array directly (offset by the smallest id), several times faster than a `Map` on a large trace. -1 ("no
 * correlation") has a slot of its own; any other id outside that range goes to a `Map`, so every id behaves
 * exactly as in a `Map` or `Set`. Pure.
 */

/** The smallest and largest id ≥ 0 in `ids` (min > max when there is none). */
export interface IdRange {
  min: number;
  max: number;
}

/**
 * The range of the non-negative ids.
 * @example idRange(Int32Array.of(-1, 7, 3)) // { min: 3, max: 7 }
 */
export function idRange(ids: Int32Array): IdRange {
  let min = Infinity;
  let max = -1;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id < 0) continue;
    if (id < min) min = id;
    if (id > max) max = id;
  }
  return { min: min === Infinity ? 0 : min, max };
}

/** Ids held densely: the range, bounded by a few bytes per row. */
function denseSize(count: number, r: IdRange): number {
  return Math.max(0, Math.min(r.max - r.min + 1, 4 * count + 1024));
}

/**
 * Correlation id → row (a non-negative integer); the last `set` wins, as in a `Map`.
 * @example new CorrRows(2, { min: 5, max: 7 }).get(3) // -1
 */
export class CorrRows {
  private readonly dense: Int32Array;
  private readonly base: number;
  private none = -1;
  private sparse: Map<number, number> | null = null;

  /** For `count` rows whose non-negative ids span `range`. */
  constructor(count: number, range: IdRange) {
    this.base = range.min;
    this.dense = new Int32Array(denseSize(count, range)).fill(-1);
  }

  set(id: number, row: number): void {
    const k = id - this.base;
    if (k >= 0 && k < this.dense.length) this.dense[k] = row;
    else if (id === -1) this.none = row;
    else (this.sparse ??= new Map()).set(id, row);
  }

  /** The row set for `id`, or -1. */
  get(id: number): number {
    const k = id - this.base;
    if (k >= 0 && k < this.dense.length) return this.dense[k]!;
    if (id === -1) return this.none;
    return this.sparse?.get(id) ?? -1;
  }
}

/**
 * A set of correlation ids.
 * @example new CorrSet(2, { min: 5, max: 7 }).has(6) // false
 */
export class CorrSet {
  private readonly dense: Uint8Array;
  private readonly base: number;
  private none = false;
  private sparse: Set<number> | null = null;

  /** For `count` rows whose non-negative ids span `range`. */
  constructor(count: number, range: IdRange) {
    this.base = range.min;
    this.dense = new Uint8Array(denseSize(count, range));
  }

  add(id: number): void {
    const k = id - this.base;
    if (k >= 0 && k < this.dense.length) this.dense[k] = 1;
    else if (id === -1) this.none = true;
    else (this.sparse ??= new Set()).add(id);
  }

  has(id: number): boolean {
    const k = id - this.base;
    if (k >= 0 && k < this.dense.length) return this.dense[k] === 1;
    if (id === -1) return this.none;
    return this.sparse?.has(id) ?? false;
  }
}
