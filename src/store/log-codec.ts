/**
 * The compact text of the log snapshot (log-snapshot.ts, v2): the events in columns instead of one
 * JSON object each, so a warm open reads and parses a few MB instead of ~11 MB for 50,000 answers.
 *
 * Events are grouped by shape (their keys, in order). Per shape, each key is one column, encoded by
 * what all its values are:
 * - safe integers: differences from the value before (times grow, so they stay short);
 * - strings that repeat: indices into one table of distinct strings (zones, types, question, card and
 *   topic ids);
 * - booleans: 0 and 1;
 * - anything else (event ids, choices, topic scores): the JSON value itself.
 * `o` gives the shape of each event in order, so decoding yields the events in the order written.
 * The result equals `JSON.parse(JSON.stringify(events))`: keys whose value is undefined are left out,
 * as JSON leaves them out. Decoding checks every index and length and throws on any mismatch; the
 * caller (log-snapshot.ts) then ignores the snapshot.
 */

/** Column kinds in the encoded text. */
const RAW = 0;
const STR = 1;
const DELTA = 2;
const BOOL = 3;

/** Keys that would change an object's prototype when assigned (parse-event.ts refuses them too). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Column = [kind: number, values: unknown[]];

interface Encoded {
  /** Distinct strings of the STR columns. */
  s: string[];
  /** Each shape's keys, in order. */
  k: string[][];
  /** Per shape, one column per key. */
  c: Column[][];
  /** The shape of each event, in order. */
  o: number[];
}

type Row = Record<string, unknown>;

const ownKeys = (e: Row): string[] => Object.keys(e).filter((k) => e[k] !== undefined);

function encodeColumn(key: string, rows: readonly Row[], strings: Map<string, number>): Column {
  const values = rows.map((r) => r[key]);
  if (values.every((v) => typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0))) {
    let prev = 0;
    return [
      DELTA,
      values.map((v) => {
        const d = (v as number) - prev;
        prev = v as number;
        return d;
      }),
    ];
  }
  // Strings that repeat (zones, types, question, card and topic ids) go into the table; unique ones
  // (event ids) stay as they are: JSON.parse makes them faster than joining or looking them up.
  if (values.every((v) => typeof v === 'string') && new Set(values).size * 2 <= values.length) {
    return [
      STR,
      values.map((v) => {
        let i = strings.get(v as string);
        if (i === undefined) {
          i = strings.size;
          strings.set(v as string, i);
        }
        return i;
      }),
    ];
  }
  if (values.every((v) => typeof v === 'boolean')) return [BOOL, values.map((v) => (v ? 1 : 0))];
  return [RAW, values];
}

/** The compact text of these events (any objects; in practice validated events, sorted). */
export function encodeLog(events: readonly object[]): string {
  const shapeOf = new Map<string, number>();
  const keys: string[][] = [];
  const rows: Row[][] = [];
  const order: number[] = [];
  for (const e of events as readonly Row[]) {
    const ks = ownKeys(e);
    const sig = ks.join('\u0000');
    let i = shapeOf.get(sig);
    if (i === undefined) {
      i = keys.length;
      shapeOf.set(sig, i);
      keys.push(ks);
      rows.push([]);
    }
    rows[i]!.push(e);
    order.push(i);
  }
  const strings = new Map<string, number>();
  const c = keys.map((ks, i) => ks.map((k) => encodeColumn(k, rows[i]!, strings)));
  const encoded: Encoded = { s: [...strings.keys()], k: keys, c, o: order };
  return JSON.stringify(encoded);
}

function fail(why: string): never {
  throw new Error(`log snapshot: ${why}`);
}
const isIndex = (x: unknown, size: number): x is number =>
  Number.isInteger(x) && (x as number) >= 0 && (x as number) < size;

function decodeColumn([kind, values]: Column, strs: readonly string[]): unknown[] {
  if (kind === RAW) return values;
  if (kind === STR) return values.map((v) => (isIndex(v, strs.length) ? strs[v] : fail('string index')));
  if (kind === BOOL) return values.map((v) => (v === 1 ? true : v === 0 ? false : fail('boolean')));
  if (kind === DELTA) {
    let sum = 0;
    return values.map((v) => {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) fail('difference');
      sum += v as number;
      return sum;
    });
  }
  return fail('column kind');
}

/** One shape's rows as objects (keys in the shape's order). */
function decodeShape(keys: unknown, cols: unknown, strs: readonly string[]): Row[] {
  if (!Array.isArray(keys) || !Array.isArray(cols) || keys.length !== cols.length) return fail('shape');
  if (new Set(keys).size !== keys.length) fail('a key twice');
  for (const k of keys) if (typeof k !== 'string' || FORBIDDEN_KEYS.has(k)) fail('key');
  const columns = (cols as unknown[]).map((col) =>
    Array.isArray(col) && col.length === 2 && Array.isArray(col[1]) ? (col as Column) : fail('column'),
  );
  const n = columns.length ? columns[0]![1].length : 0;
  if (columns.some((col) => col[1].length !== n)) fail('column length');
  const values = columns.map((col) => decodeColumn(col, strs));
  const out: Row[] = new Array(n);
  for (let r = 0; r < n; r++) {
    const o: Row = {};
    for (let j = 0; j < keys.length; j++) o[keys[j] as string] = values[j]![r];
    out[r] = o;
  }
  return out;
}

/** The events of a text from `encodeLog`, in order; throws when the text is not one. */
export function decodeLog(text: string): Row[] {
  const e = JSON.parse(text) as Partial<Encoded> | null;
  if (typeof e !== 'object' || e === null) return fail('not an object');
  const { s, k, c, o } = e;
  if (!Array.isArray(s) || !Array.isArray(k) || !Array.isArray(c) || !Array.isArray(o)) return fail('parts');
  if (k.length !== c.length || !s.every((x) => typeof x === 'string')) fail('tables');
  const shapes = k.map((keys, i) => decodeShape(keys, c[i], s));
  const next = new Array<number>(shapes.length).fill(0);
  const out: Row[] = new Array(o.length);
  for (let i = 0; i < o.length; i++) {
    const shape = o[i];
    if (!isIndex(shape, shapes.length)) fail('shape index');
    const row = shapes[shape]![next[shape]!++];
    out[i] = row ?? fail('more events than rows');
  }
  if (next.some((used, i) => used !== shapes[i]!.length)) fail('rows left over');
  return out;
}
