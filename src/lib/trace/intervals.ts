/** Interval arithmetic on event rows: HTA's `merge_kernel_intervals`, union length and overlap. Pure. */

/** Disjoint, sorted intervals, microseconds. */
export interface Merged {
  start: Float64Array;
  end: Float64Array;
  count: number;
}

/** Row indices sorted by start, ties in file order (a stable sort). Rows already in that order are returned as they are. */
export function sortByStart(rows: Int32Array, tsUs: Float64Array): Int32Array {
  let sorted = true;
  for (let k = 1; k < rows.length && sorted; k++) {
    const d = tsUs[rows[k]!]! - tsUs[rows[k - 1]!]!;
    sorted = d > 0 || (d === 0 && rows[k]! > rows[k - 1]!);
  }
  if (sorted) return rows;
  return sortPacked(rows, tsUs) ?? Int32Array.from(rows).sort((a, b) => tsUs[a]! - tsUs[b]! || a - b);
}

/**
 * The same order without a comparator, when every start is a whole microsecond: each row becomes one exact
 * integer key `(start − first start) × (last row + 1) + row`, and a native numeric sort orders the keys. Null when
 * the keys would not be exact (fractional starts, or more than 2^53).
 * @example sortPacked(Int32Array.of(2, 0, 1), Float64Array.of(5, 3, 5)) // Int32Array [1, 0, 2]
 */
export function sortPacked(rows: Int32Array, tsUs: Float64Array): Int32Array | null {
  const n = rows.length;
  let min = Infinity;
  let max = -Infinity;
  let span = 1;
  for (let k = 0; k < n; k++) {
    const r = rows[k]!;
    const t = tsUs[r]!;
    if (!Number.isInteger(t) || r < 0) return null;
    if (t < min) min = t;
    if (t > max) max = t;
    if (r >= span) span = r + 1;
  }
  if ((max - min + 1) * span > Number.MAX_SAFE_INTEGER) return null;
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) keys[k] = (tsUs[rows[k]!]! - min) * span + rows[k]!;
  keys.sort();
  const out = new Int32Array(n);
  for (let k = 0; k < n; k++) out[k] = keys[k]! % span;
  return out;
}

/**
 * Merges the rows' intervals as HTA does: a row starts a new interval only when its start is after every
 * earlier end (`ts > end.shift().cummax()`), so touching intervals merge.
 */
export function mergeRows(rows: Int32Array, tsUs: Float64Array, endUs: Float64Array): Merged {
  const sorted = sortByStart(rows, tsUs);
  const start = new Float64Array(sorted.length);
  const end = new Float64Array(sorted.length);
  let count = 0;
  for (const r of sorted) {
    const s = tsUs[r]!;
    const e = endUs[r]!;
    if (count > 0 && s <= end[count - 1]!) {
      if (e > end[count - 1]!) end[count - 1] = e;
    } else {
      start[count] = s;
      end[count] = e;
      count++;
    }
  }
  return { start, end, count };
}

/** Total length of merged intervals. */
export function unionUs(m: Merged): number {
  let t = 0;
  for (let i = 0; i < m.count; i++) t += m.end[i]! - m.start[i]!;
  return t;
}

/** From the first start to the last end. */
export function spanUs(m: Merged): number {
  return m.count === 0 ? 0 : m.end[m.count - 1]! - m.start[0]!;
}

/** Length of the intersection of two merged sets. */
export function overlapUs(a: Merged, b: Merged): number {
  let i = 0;
  let j = 0;
  let t = 0;
  while (i < a.count && j < b.count) {
    const s = Math.max(a.start[i]!, b.start[j]!);
    const e = Math.min(a.end[i]!, b.end[j]!);
    if (e > s) t += e - s;
    if (a.end[i]! < b.end[j]!) i++;
    else j++;
  }
  return t;
}

/** Length of `m` inside [from, to]: binary search to the first interval, then a walk. */
export function coveredUs(m: Merged, fromUs: number, toUs: number): number {
  let lo = 0;
  let hi = m.count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (m.end[mid]! <= fromUs) lo = mid + 1;
    else hi = mid;
  }
  let t = 0;
  for (let i = lo; i < m.count && m.start[i]! < toUs; i++) {
    const s = Math.max(m.start[i]!, fromUs);
    const e = Math.min(m.end[i]!, toUs);
    if (e > s) t += e - s;
  }
  return t;
}

/** Merged intervals from plain arrays of starts and ends (any order). */
export function mergePairs(starts: number[], ends: number[]): Merged {
  const rows = Int32Array.from(starts.keys());
  return mergeRows(rows, Float64Array.from(starts), Float64Array.from(ends));
}

/** `a` minus `b`, both merged. */
export function subtract(a: Merged, b: Merged): Merged {
  const start: number[] = [];
  const end: number[] = [];
  let j = 0;
  for (let i = 0; i < a.count; i++) {
    let s = a.start[i]!;
    const e = a.end[i]!;
    while (j < b.count && b.end[j]! <= s) j++;
    let k = j;
    while (k < b.count && b.start[k]! < e) {
      if (b.start[k]! > s) {
        start.push(s);
        end.push(b.start[k]!);
      }
      s = Math.max(s, b.end[k]!);
      k++;
    }
    if (s < e) {
      start.push(s);
      end.push(e);
    }
  }
  return { start: Float64Array.from(start), end: Float64Array.from(end), count: start.length };
}
