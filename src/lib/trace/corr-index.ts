/**
 * Correlation ids as slots, for the join between a CPU launch and its GPU event: each row's id becomes a small
 * integer, equal for equal ids and different for different ones, so the analyses' maps and sets by correlation
 * are typed arrays indexed by slot, several times faster than a `Map` or `Set` on a large trace. Kineto numbers
 * correlations upwards from some start, so a trace's ids mostly fill a range about as long as its events: the
 * slot is then the id's offset in that range (one pass). Otherwise (ids spread thinly, as in a sampled trace or
 * one made of copies, or negative ids other than -1) the slot is the id's rank among the distinct ids (a sort).
 * -1 ("no correlation") is an id like any other. Pure.
 */

/** Each row's correlation id as a slot. */
export interface CorrSlots {
  /** Row i's slot, 0 ≤ slot < size. */
  slot: Int32Array;
  /** Slots in all: the length of an array indexed by slot. */
  size: number;
}

/**
 * The slots of `ids`: `slot[i] === slot[j]` exactly when `ids[i] === ids[j]`.
 * @example corrSlots(Int32Array.of(7, -1, 5, 7)).slot // Int32Array [3, 0, 1, 3]
 */
export function corrSlots(ids: Int32Array): CorrSlots {
  const n = ids.length;
  let min = Infinity;
  let max = -1;
  let otherNegative = false;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    if (id < 0) {
      if (id !== -1) otherNegative = true;
    } else {
      if (id < min) min = id;
      if (id > max) max = id;
    }
  }
  // Dense: -1 → 0, min..max → 1..; bounded by a few slots per row.
  if (!otherNegative && (max < 0 || max - min + 1 <= 4 * n + 1024)) {
    const base = max < 0 ? 0 : min - 1;
    const slot = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      slot[i] = id < 0 ? 0 : id - base;
    }
    return { slot, size: max < 0 ? 1 : max - base + 1 };
  }
  return rankSlots(ids);
}

/** Slots by rank among the distinct ids: a numeric sort, then a binary search per row. */
function rankSlots(ids: Int32Array): CorrSlots {
  const sorted = Int32Array.from(ids).sort();
  let size = 0;
  for (let k = 0; k < sorted.length; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[size++] = sorted[k]!;
  const slot = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    slot[i] = lo;
  }
  return { slot, size };
}
