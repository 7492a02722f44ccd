/**
 * Prometheus's remote-write protocol (1.0), written by hand, to fill a real Prometheus
 * (`--web.enable-remote-write-receiver`) with more than promtool backfills here: promtool reads OpenMetrics text, a
 * label set per sample, and parses its whole input once per 2-hour block it writes.
 *
 * The body is a `prometheus.WriteRequest` protobuf (prompb/remote.proto and types.proto: TimeSeries = 1, its
 * Label = 1 {name = 1, value = 2} and Sample = 2 {value = 1 double, timestamp = 2 int64 ms}) in snappy's block
 * format with every byte a literal: valid snappy, nothing compressed, as the request never leaves the loopback.
 *
 * Prometheus appends what it receives to its head block, which takes a series' samples only in time order and none
 * older than an hour before the newest it holds (half its 2-hour block): a writer sends the fleet in time order,
 * an hour or less at a time (rules-import.ts).
 */

/** Bytes of a varint (protobuf's, snappy's): 7 bits a byte, least significant first. */
function varintLength(n: number): number {
  let len = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Bytes of a Sample: the value's tag and 8 bytes, the timestamp's tag and varint. */
const sampleLength = (tMs: number): number => 1 + 8 + 1 + varintLength(tMs);

/** A protobuf message written into one growing buffer. */
class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 256) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(n: number): void {
    this.reserve(10);
    while (n >= 128) {
      this.buf[this.pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A length-delimited field (wire type 2) holding `b`. */
  field(tag: number, b: Uint8Array): void {
    this.varint((tag << 3) | 2);
    this.varint(b.length);
    this.bytes(b);
  }
}

/**
 * A series' labels as the `labels` fields of a TimeSeries message, sorted by name as the protocol asks; encoded once
 * and reused for each request that carries the series.
 */
export function encodeLabels(labels: Record<string, string>): Buffer {
  const w = new ProtoWriter();
  for (const name of Object.keys(labels).sort()) {
    const label = new ProtoWriter();
    label.field(1, Buffer.from(name));
    label.field(2, Buffer.from(labels[name]!));
    w.field(1, label.buf.subarray(0, label.pos));
  }
  return Buffer.from(w.buf.subarray(0, w.pos));
}

/** One WriteRequest, series by series. */
export class WriteRequest {
  #w = new ProtoWriter(8 << 20);
  /** Samples added. */
  samples = 0;

  /** Adds a series (`labels` from encodeLabels) with its first `n` samples: times in ms, in order. */
  add(labels: Buffer, timesMs: ArrayLike<number>, values: ArrayLike<number>, n: number): void {
    let size = labels.length;
    for (let i = 0; i < n; i++) {
      const sample = sampleLength(timesMs[i]!);
      size += 1 + varintLength(sample) + sample;
    }
    const w = this.#w;
    w.varint((1 << 3) | 2);
    w.varint(size);
    w.reserve(size);
    w.bytes(labels);
    for (let i = 0; i < n; i++) {
      const t = timesMs[i]!;
      w.varint((2 << 3) | 2);
      w.varint(sampleLength(t));
      w.buf[w.pos++] = (1 << 3) | 1; // value: fixed64
      w.buf.writeDoubleLE(values[i]!, w.pos);
      w.pos += 8;
      w.varint(2 << 3); // timestamp: varint
      w.varint(t);
    }
    this.samples += n;
  }

  /** Bytes of protobuf so far. */
  get size(): number {
    return this.#w.pos;
  }

  /** The request's body: snappy's block format, the uncompressed length then the whole message as one literal. */
  body(): Uint8Array<ArrayBuffer> {
    const n = this.#w.pos;
    const head = new ProtoWriter();
    head.varint(n);
    // A literal's tag (low 2 bits 0): up to 60 bytes, its length - 1 in the upper 6 bits; longer, 59 + the bytes
    // that length - 1 takes (1–4), which follow the tag, least significant first. An empty message is no literal.
    if (n === 0) {
      /* the length alone */
    } else if (n <= 60) head.bytes(Uint8Array.of((n - 1) << 2));
    else {
      const lenBytes = n - 1 < 1 << 8 ? 1 : n - 1 < 1 << 16 ? 2 : n - 1 < 1 << 24 ? 3 : 4;
      head.bytes(Uint8Array.of((59 + lenBytes) << 2));
      const len = Buffer.alloc(4);
      len.writeUInt32LE(n - 1);
      head.bytes(len.subarray(0, lenBytes));
    }
    const out = new Uint8Array(head.pos + n);
    out.set(head.buf.subarray(0, head.pos));
    out.set(this.#w.buf.subarray(0, n), head.pos);
    return out;
  }
}

/** Sends `req` to the Prometheus at `url`; rejects with Prometheus's answer when it refuses any of it. */
export async function remoteWrite(url: string, req: WriteRequest): Promise<void> {
  const res = await fetch(`${url}/api/v1/write`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    },
    body: req.body(),
  });
  if (!res.ok)
    throw new Error(`prometheus refused the remote write: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
}
