/**
 * A streaming scanner for Chrome-trace JSON, fed text chunk by chunk. It never holds the whole file:
 * it finds where each element of the `traceEvents` array ends, hands the complete ones of each chunk to
 * `JSON.parse` in one batch (native, fast) and keeps only the unfinished tail. Other top-level values it
 * keeps (as text, then parsed) only for the keys asked for, each up to `maxValueChars`.
 *
 * State: the nesting depth, whether it is inside a string, the key being read at the top level, and the
 * kept value's text. Inside the event array, whole events go to `JSON.parse` without a scan where they can
 * (the fast path and the text carried between chunks: event-text.ts); what it cannot take is scanned here.
 * A bare array of events (the Chrome format's other form) is read as the event array. Pure: no DOM, no I/O.
 */
import { TraceError } from './errors.ts';
import { EventText, isSpace } from './event-text.ts';

/** What the scanner reports. */
export interface ScanSink {
  /** A batch of parsed `traceEvents` elements, in file order. */
  events(batch: unknown[]): void;
  /** A kept top-level value (key asked for in `keepKeys`), parsed. */
  value(key: string, value: unknown): void;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJ = 123;
const CLOSE_OBJ = 125;
const OPEN_ARR = 91;
const CLOSE_ARR = 93;
const COMMA = 44;
const COLON = 58;

/** Structural characters, found with a global regex so runs of numbers and spaces are skipped natively. */
const STRUCTURAL = /[{}[\]",:]/g;

/** Scans one trace document. Call `push` per text chunk, then `end`. */
export class TraceScanner {
  private depth = 0;
  private inString = false;
  /** The chunk ended inside a string on an unpaired backslash: the next chunk's first character is escaped. */
  private escapeNext = false;
  /** Characters of text seen so far (for error positions). */
  private seen = 0;
  private started = false;
  private rootOpened = false;
  private rootIsArray = false;
  /** At depth 1 of the root object: the next string is a key. */
  private expectKey = false;
  private keyText: string | null = null;
  private currentKey: string | null = null;
  /** Depth whose elements are trace events (2 inside `{"traceEvents": [...]}`, 1 for a bare array). */
  private eventsDepth = -1;
  private inEvents = false;
  private sawEvents = false;
  private readonly events: EventText;
  private keepText: string | null = null;
  private readonly keep: ReadonlySet<string>;
  private readonly sink: ScanSink;
  private readonly maxValueChars: number;

  constructor(sink: ScanSink, keepKeys: readonly string[] = [], maxValueChars = 4_000_000) {
    this.sink = sink;
    this.events = new EventText((batch) => sink.events(batch));
    this.keep = new Set(keepKeys);
    this.maxValueChars = maxValueChars;
  }

  /** True once a `traceEvents` array (or a bare event array) has been seen. */
  get foundEvents(): boolean {
    return this.sawEvents;
  }

  /** Feeds the next chunk of text. Throws `TraceError` on text that cannot be a trace. */
  push(text: string): void {
    const n = text.length;
    if (n === 0) return;
    let i = 0;
    if (!this.started) {
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      if (i === n) {
        this.seen += n;
        return;
      }
      if (text.charCodeAt(i) === 0xfeff) i++; // byte-order mark
      const c = text.charCodeAt(i);
      if (c !== OPEN_OBJ && c !== OPEN_ARR)
        throw new TraceError(
          'not-json',
          `This file is not JSON (it starts with "${text.slice(i, i + 12)}"). Open the .json or .json.gz file the PyTorch profiler wrote (torch.profiler's tensorboard_trace_handler or export_chrome_trace).`,
        );
      this.started = true;
      this.rootIsArray = c === OPEN_ARR;
    }
    if (this.inEvents) this.pushEvents(text);
    else this.scan(text, i, this.keepText !== null ? 0 : -1);
  }

  /** Text inside the event array, after the carried text: the fast path, else an exact scan. */
  private pushEvents(text: string): void {
    const parsed = this.events.push(text);
    if (parsed >= 0) this.seen += parsed;
    else this.scan(this.events.take() + text, 0, 0);
  }

  /**
   * Scans `text` from `i` exactly. `segStart` is where the carried event or kept value starts in it (-1:
   * none). Inside the event array it ends at an element boundary: the unfinished event is carried, unscanned.
   */
  private scan(text: string, i: number, segStart: number): void {
    const n = text.length;
    STRUCTURAL.lastIndex = i;
    while (true) {
      if (this.inString) {
        if (this.escapeNext) {
          this.escapeNext = false;
          i++;
          if (i > n) break;
        }
        const q = findClosingQuote(text, i);
        if (q < 0) {
          if (this.keyText !== null) this.keyText += text.slice(i);
          let run = 0;
          for (let k = n - 1; k >= i && text.charCodeAt(k) === BACKSLASH; k--) run++;
          this.escapeNext = run % 2 === 1;
          break;
        }
        if (this.keyText !== null) {
          this.keyText += text.slice(i, q);
          this.currentKey = this.keyText;
          this.keyText = null;
        }
        this.inString = false;
        i = q + 1;
        STRUCTURAL.lastIndex = i;
        continue;
      }
      const m = STRUCTURAL.exec(text);
      if (m === null) break;
      const at = m.index;
      const c = text.charCodeAt(at);
      i = at + 1;
      switch (c) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && !this.rootIsArray && this.expectKey) {
            this.keyText = '';
            this.expectKey = false;
          }
          break;
        case OPEN_OBJ:
        case OPEN_ARR:
          if (this.depth === 0) {
            if (this.rootOpened) throw this.bad(at, 'a second JSON value after the first one ended');
            this.rootOpened = true;
          }
          this.depth++;
          if (this.depth === 1 && !this.rootIsArray) this.expectKey = true;
          if (
            !this.inEvents &&
            ((this.depth === 1 && this.rootIsArray) ||
              (this.depth === 2 && !this.rootIsArray && this.currentKey === 'traceEvents' && c === OPEN_ARR))
          ) {
            this.inEvents = true;
            this.sawEvents = true;
            this.eventsDepth = this.depth;
            // The rest of the chunk starts at an element boundary: the fast path may take it from here.
            this.seen += i;
            this.pushEvents(text.slice(i));
            return;
          }
          break;
        case CLOSE_OBJ:
        case CLOSE_ARR:
          if (this.inEvents && this.depth === this.eventsDepth) {
            this.flushEvents(text, segStart, at);
            this.inEvents = false;
            segStart = -1;
          } else if (this.depth === 1 && this.keepText !== null) {
            this.flushValue(text, segStart, at);
            segStart = -1;
          }
          this.depth--;
          if (this.depth < 0) throw this.bad(at, 'a closing bracket with nothing open');
          break;
        case COMMA:
          if (this.inEvents && this.depth === this.eventsDepth) {
            this.flushEvents(text, segStart, at);
            segStart = i;
          } else if (this.depth === 1 && !this.rootIsArray) {
            if (this.keepText !== null) this.flushValue(text, segStart, at);
            segStart = -1;
            this.expectKey = true;
            this.currentKey = null;
          }
          break;
        case COLON:
          if (this.depth === 1 && !this.rootIsArray && this.currentKey !== null && this.keep.has(this.currentKey)) {
            this.keepText = '';
            segStart = i;
          }
          break;
      }
    }
    this.seen += n;
    if (this.inEvents) {
      // Back to the last element boundary: what follows it is carried and scanned again with the next chunk.
      this.events.carry = text.slice(segStart);
      this.seen -= this.events.carry.length;
      this.depth = this.eventsDepth;
      this.inString = false;
      this.escapeNext = false;
    } else if (segStart >= 0 && this.keepText !== null) {
      this.keepText += text.slice(segStart);
      if (this.keepText.length > this.maxValueChars) this.keepText = null;
    }
  }

  /** Ends the document. Throws when it stopped early (a truncated file) or held no trace events. */
  end(): void {
    if (this.inEvents && this.events.carry.length > 0) this.scan(this.events.take(), 0, 0);
    if (!this.started)
      throw new TraceError(
        'empty',
        'The file is empty. Open the trace the PyTorch profiler wrote (.json or .json.gz).',
      );
    if (this.depth !== 0 || this.inString)
      throw new TraceError(
        'truncated',
        `The trace ends early, after ${formatChars(this.seen)} of JSON: the file is cut short (a copy or download that did not finish, or a job killed while writing). Copy the file again, or export the trace again.`,
      );
    if (!this.sawEvents)
      throw new TraceError(
        'not-a-trace',
        'This is JSON but not a profiler trace: it has no "traceEvents" array. Open the file torch.profiler wrote (export_chrome_trace or tensorboard_trace_handler), not a results or config file.',
      );
  }

  private flushEvents(text: string, start: number, stop: number): void {
    const body = text.slice(start, stop);
    if (!hasContent(body)) return;
    let batch: unknown;
    try {
      batch = JSON.parse(`[${body}]`);
    } catch (e) {
      throw this.bad(stop, (e as Error).message);
    }
    this.sink.events(batch as unknown[]);
  }

  private flushValue(text: string, start: number, stop: number): void {
    const key = this.currentKey ?? '';
    const body = (this.keepText ?? '') + text.slice(Math.max(start, 0), stop);
    this.keepText = null;
    try {
      this.sink.value(key, JSON.parse(body));
    } catch {
      // A malformed metadata value is not worth failing the trace for; the key is simply not read.
    }
  }

  private bad(at: number, why: string): TraceError {
    return new TraceError(
      'not-json',
      `The file is not valid JSON near character ${formatChars(this.seen + at)} (${why}). If it is a trace, it was damaged: export it again.`,
    );
  }
}

/** Commas between this batch's events are valid JSON array separators; a batch may be only whitespace. */
function hasContent(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isSpace(s.charCodeAt(i))) return true;
  return false;
}

/** Index of the quote that ends the string starting at `from`, or -1 when it runs past the chunk. */
function findClosingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q >= 0) {
    let slashes = 0;
    for (let k = q - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

function formatChars(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G characters`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M characters`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k characters`;
  return `${n} characters`;
}
