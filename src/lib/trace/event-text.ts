/**
 * The text of a trace's event array between chunks, for `TraceScanner` (json-scan.ts): what is carried from one
 * chunk to the next, and the fast path that hands whole events to `JSON.parse` without scanning them.
 *
 * Between chunks inside the event array the scanner is always "at an element boundary" and the carried text is
 * not yet scanned. The last `}`, `,`, `{` of a chunk (spaces and newlines between allowed, so pretty-printed and
 * minified traces alike) is most likely the boundary between two events; the text up to it is handed to
 * `JSON.parse` as one batch. `JSON.parse` only accepts it if the cut was at depth 0 of the batch, outside any
 * string, i.e. between two events; if it was not (inside a string, or a nested array of objects), the parse
 * fails and the scanner scans the text exactly. Pure: no DOM, no I/O.
 */

const COMMA = 44;
const CLOSE_OBJ = 125;

/** Characters of event text carried while no `}, {` comes (the parse batches are 64 KB; 1 MB as they were before). */
export const CARRY_MAX = 1 << 20;

/** The carried text of the event array and its fast path. */
export class EventText {
  /** Unscanned text after the last element boundary: the start of an unfinished event. */
  carry = '';
  private readonly onBatch: (batch: unknown[]) => void;

  /** `onBatch` receives each batch of parsed events, in file order. */
  constructor(onBatch: (batch: unknown[]) => void) {
    this.onBatch = onBatch;
  }

  /**
   * Takes the next piece of event-array text, which follows the carried text. Returns how many characters
   * (from the start of the carried text) it parsed as whole events, 0 when it carried the piece (no `}, {` in it,
   * up to CARRY_MAX: scanning each such piece exactly made a 2 GB trace padded with spaces 5× slower,
   * test/unit/trace-large.test.ts), or -1 when the carried text and the piece must be scanned exactly (`take`).
   */
  push(text: string): number {
    const cut = lastEventCut(text);
    if (cut >= 0) {
      const parsed = this.parseUpTo(text, cut);
      if (parsed >= 0) return parsed;
    } else if (this.carry.length + text.length <= CARRY_MAX) {
      this.carry += text;
      return 0;
    }
    return -1;
  }

  /** The carried text, which is emptied. */
  take(): string {
    const rest = this.carry;
    this.carry = '';
    return rest;
  }

  /** Parses the events up to the piece's last `}, {` (at `cut`); -1 when that was not a boundary. */
  private parseUpTo(text: string, cut: number): number {
    let batch: unknown;
    try {
      batch = JSON.parse(`[${this.carry}${text.slice(0, cut)}]`);
    } catch {
      return -1;
    }
    this.onBatch(batch as unknown[]);
    const parsed = this.carry.length + cut + 1;
    this.carry = text.slice(cut + 1);
    return parsed;
  }
}

/**
 * Index of the last comma in `text` between a `}` and a `{` (spaces and newlines around it allowed): where
 * two events most likely meet. It may be inside a string or a nested value; `JSON.parse` then tells. -1 when
 * there is none among the last 64 braces.
 * @example lastEventCut('{"a":{"b":1}},{"c":2},{"d"') // 21
 */
export function lastEventCut(text: string): number {
  let open = text.lastIndexOf('{');
  for (let tries = 0; open > 0 && tries < 64; tries++, open = text.lastIndexOf('{', open - 1)) {
    let k = open - 1;
    while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
    if (k < 0 || text.charCodeAt(k) !== COMMA) continue;
    const comma = k--;
    while (k >= 0 && isSpace(text.charCodeAt(k))) k--;
    if (k >= 0 && text.charCodeAt(k) === CLOSE_OBJ) return comma;
  }
  return -1;
}

/**
 * JSON's whitespace, by character code.
 * @example isSpace(' '.charCodeAt(0)) // true
 */
export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
