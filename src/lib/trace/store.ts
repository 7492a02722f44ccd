/**
 * The compact form of a trace: one row per complete event, in typed arrays that grow by doubling, with
 * names, categories and thread ids interned. Only the fields the analyses read are kept (about 44 bytes
 * an event, against ~300 bytes of JSON), so a large trace costs a fraction of its size once read.
 *
 * Which events: those with a numeric `dur` and a string `cat` other than "Trace", as HTA keeps
 * (hta/common/trace_parser.py drops rows whose `dur` or `cat` is null, and the "Trace" category).
 * `stream` and `correlation` come from `args`, -1 when absent or not a number, as HTA's defaults.
 */

/** One rank's events, column by column. Row i is the i-th kept event in file order. */
export interface EventTable {
  count: number;
  /** Start, microseconds as written (may be fractional: nanosecond-resolution traces). */
  tsUs: Float64Array;
  durUs: Float64Array;
  /** Index into `strings`. */
  name: Int32Array;
  cat: Int32Array;
  tid: Int32Array;
  /** `args.stream`, or -1. A double: device-wide syncs carry 4294967295 (uint32 -1), which HTA reads as a stream. */
  stream: Float64Array;
  /**
   * `args.correlation`, or -1. Held as 32-bit integers (small integers are V8's fast map keys); an id
   * beyond ±2^31 wraps, which only matters if two live ids 2^32 apart meet in one trace.
   */
  corr: Int32Array;
  /** Interned names, categories and thread ids. */
  strings: string[];
}

/** Thrown by `EventStore` when a trace holds more events than it may keep (`maxEvents`, or memory ran out). */
export class TooManyEvents extends Error {
  readonly events: number;
  constructor(events: number) {
    super(`more than ${events} events`);
    this.events = events;
  }
}

/** Builds an `EventTable` from parsed trace events, one batch at a time. */
export class EventStore {
  /** Rows allocated: small, as most traces are; doubling takes a large one there in a few copies. */
  private cap = 1 << 10;
  /** The most events kept; one more throws `TooManyEvents` (as does failing to allocate room for them). */
  readonly maxEvents: number;

  constructor(maxEvents = Infinity) {
    this.maxEvents = maxEvents;
  }

  count = 0;
  tsUs = new Float64Array(this.cap);
  durUs = new Float64Array(this.cap);
  name = new Int32Array(this.cap);
  cat = new Int32Array(this.cap);
  tid = new Int32Array(this.cap);
  stream = new Float64Array(this.cap);
  corr = new Int32Array(this.cap);
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  /** Numeric thread ids already interned (as their decimal text): one lookup, no string made per event. */
  private readonly tidIds = new Map<number, number>();
  /** Any kept event had a fractional `ts` (HTA then rounds: start up, end down). */
  fractionalTs = false;
  /** `ac2g` flow events (CPU launch to GPU kernel arrows). */
  flowCount = 0;
  /** Elements of `traceEvents` seen, kept or not. */
  seenCount = 0;

  /** The id of a string, adding it on first sight. */
  intern(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  /** The id of a string already seen, or -1. */
  idOf(s: string): number {
    return this.ids.get(s) ?? -1;
  }

  /** Adds the events of one batch that HTA would keep. */
  addBatch(batch: readonly unknown[]): void {
    for (const ev of batch) {
      this.seenCount++;
      if (typeof ev !== 'object' || ev === null) continue;
      const e = ev as Record<string, unknown>;
      const dur = e['dur'];
      const cat = e['cat'];
      if (typeof dur !== 'number' || typeof cat !== 'string' || cat === 'Trace') {
        if ((e['ph'] === 's' || e['ph'] === 'f') && cat === 'ac2g') this.flowCount++;
        continue;
      }
      const ts = e['ts'];
      if (typeof ts !== 'number') continue;
      if (this.count === this.cap || this.count === this.maxEvents) this.grow();
      const i = this.count++;
      this.tsUs[i] = ts;
      this.durUs[i] = dur;
      if (!this.fractionalTs && !Number.isInteger(ts)) this.fractionalTs = true;
      this.cat[i] = this.intern(cat);
      const name = e['name'];
      this.name[i] = this.intern(typeof name === 'string' ? name : String(name));
      const tid = e['tid'];
      if (typeof tid === 'number') {
        let id = this.tidIds.get(tid);
        if (id === undefined) {
          id = this.intern(String(tid));
          this.tidIds.set(tid, id);
        }
        this.tid[i] = id;
      } else this.tid[i] = this.intern(String(tid ?? ''));
      const args = e['args'];
      if (typeof args === 'object' && args !== null) {
        const a = args as Record<string, unknown>;
        this.stream[i] = toInt(a['stream']);
        const c = a['correlation'];
        this.corr[i] = typeof c === 'number' && Number.isFinite(c) ? Math.trunc(c) | 0 : -1;
      } else {
        this.stream[i] = -1;
        this.corr[i] = -1;
      }
    }
  }

  /** The finished table: views of its rows (no copy). */
  table(): EventTable {
    const n = this.count;
    return {
      count: n,
      tsUs: this.tsUs.subarray(0, n),
      durUs: this.durUs.subarray(0, n),
      name: this.name.subarray(0, n),
      cat: this.cat.subarray(0, n),
      tid: this.tid.subarray(0, n),
      stream: this.stream.subarray(0, n),
      corr: this.corr.subarray(0, n),
      strings: this.strings,
    };
  }

  private grow(): void {
    if (this.count >= this.maxEvents) throw new TooManyEvents(this.count);
    this.cap = Math.min(this.cap * 2, this.maxEvents);
    try {
      this.growArrays();
    } catch (e) {
      // The device could not give the table room: a RangeError ("Array buffer allocation failed").
      if (e instanceof RangeError) throw new TooManyEvents(this.count);
      throw e;
    }
  }

  private growArrays(): void {
    const g64 = (a: Float64Array) => {
      const b = new Float64Array(this.cap);
      b.set(a);
      return b;
    };
    const g32 = (a: Int32Array) => {
      const b = new Int32Array(this.cap);
      b.set(a);
      return b;
    };
    this.tsUs = g64(this.tsUs);
    this.durUs = g64(this.durUs);
    this.corr = g32(this.corr);
    this.name = g32(this.name);
    this.cat = g32(this.cat);
    this.tid = g32(this.tid);
    this.stream = g64(this.stream);
  }
}

const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** HTA's `pd.to_numeric(errors="coerce").fillna(-1).astype(int)`: numbers and numeric strings, else -1. */
function toInt(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : -1;
  // Decimal only: pandas reads "0x0" (a ROCm runtime call's stream) as not a number, so the call stays on the CPU.
  if (typeof v === 'string' && DECIMAL.test(v)) {
    const x = Number(v);
    return Number.isFinite(x) ? Math.trunc(x) : -1;
  }
  return -1;
}
