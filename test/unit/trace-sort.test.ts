import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { sortByStart, sortPacked } from '../../src/lib/trace/intervals.ts';

const byComparator = (rows: Int32Array, ts: Float64Array) =>
  Array.from(Int32Array.from(rows).sort((a, b) => ts[a]! - ts[b]! || a - b));

describe('ordering rows by start (the order every analysis walks)', () => {
  test('the comparator-free sort gives the stable order by start, ties by row, on any rows (fuzzed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 200 }),
        fc.constantFrom(0, 1_682_725_898_236_567),
        fc.boolean(),
        (offsets, base, shuffle) => {
          const ts = Float64Array.from(offsets, (o) => base + o);
          const rows = Int32Array.from(offsets.keys());
          if (shuffle) rows.reverse();
          expect(Array.from(sortPacked(rows, ts)!)).toEqual(byComparator(rows, ts));
          expect(Array.from(sortByStart(rows, ts))).toEqual(byComparator(rows, ts));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('falls back to the comparator where keys would not be exact: fractional starts', () => {
    const ts = Float64Array.of(3.5, 1.25, 3.5);
    expect(sortPacked(Int32Array.of(0, 1, 2), ts)).toBeNull();
    expect(Array.from(sortByStart(Int32Array.of(0, 1, 2), ts))).toEqual([1, 0, 2]);
  });
});
