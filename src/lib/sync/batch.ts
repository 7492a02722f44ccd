/**
 * Events packed several to an item, compressed, then encrypted (envelope version 2). One event an item (version 1)
 * cost 441 B on the wire each, incompressible once encrypted; a batch is compressed before AES-GCM, so a new
 * device's first pull of 10,000 events is a fraction of that (`node bench/sync-browser.ts` prints both).
 *
 * Plaintext of a version-2 item: the byte 0x02, then deflate-raw of the JSON `{ "v": 2, "events": [...] }`.
 * A version-1 plaintext is JSON and so starts with `{` (0x7b); items.ts reads both.
 *
 * A batch's item id (`batchItemId`, items.ts) is HMAC("batch:" + its sorted event ids): it reveals no event id or time, and a push retried
 * after a lost response packs the same events into the same batches, so the server dedupes it by id.
 */
import { utf8 } from './bytes.ts';

export const BATCH_VERSION = 2;
/** The first plaintext byte of a version-2 item. */
export const BATCH_MAGIC = 0x02;
/** Plaintext JSON per batch before compression: well under the server's 64 KiB of ciphertext per item. */
export const BATCH_PLAIN_BYTES = 32 * 1024;
/** Events per batch at most. */
export const BATCH_EVENTS = 1000;
/** The most a batch may inflate to (a damaged or hostile item cannot fill memory). */
export const BATCH_INFLATED_MAX = 1024 * 1024;

/**
 * Splits events, in order, into runs of at most `maxBytes` of JSON and `maxEvents` events (a single larger event
 * gets a run of its own). Pure; the same input gives the same runs, so a retried push gives the same item ids.
 * @example packEvents([{ id: 'a' }, { id: 'b' }], 1000).length // 1
 */
export function packEvents<E>(events: readonly E[], maxBytes = BATCH_PLAIN_BYTES, maxEvents = BATCH_EVENTS): E[][] {
  const runs: E[][] = [];
  let run: E[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = utf8(JSON.stringify(e)).length + 1;
    if (run.length && (bytes + size > maxBytes || run.length >= maxEvents)) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(e);
    bytes += size;
  }
  if (run.length) runs.push(run);
  return runs;
}

async function pipe(
  bytes: Uint8Array<ArrayBuffer>,
  stream: { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> },
  max: number,
) {
  // Written straight into the stream (a Blob's stream goes through the browser process in Chromium: slower).
  const writer = stream.writable.getWriter();
  writer.write(bytes).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      throw new Error(`more than ${max} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
}

/** The version-2 plaintext of a batch: 0x02 + deflate-raw(JSON). */
export async function batchPlaintext(events: readonly unknown[]): Promise<Uint8Array<ArrayBuffer>> {
  const json = utf8(JSON.stringify({ v: BATCH_VERSION, events }));
  const packed = await pipe(json, new CompressionStream('deflate-raw'), json.length + 1024);
  const out = new Uint8Array(packed.length + 1);
  out[0] = BATCH_MAGIC;
  out.set(packed, 1);
  return out;
}

/** Inflates a version-2 plaintext (after the magic byte) and reads its events; throws in words if damaged. */
export async function readBatchPlaintext(plain: Uint8Array): Promise<unknown[]> {
  let json: Uint8Array;
  try {
    json = await pipe(plain.slice(1), new DecompressionStream('deflate-raw'), BATCH_INFLATED_MAX);
  } catch (e) {
    throw new Error(`compressed batch does not inflate (${e instanceof Error ? e.message : String(e)})`);
  }
  const env = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json)) as { v?: unknown; events?: unknown };
  if (env?.v !== BATCH_VERSION || !Array.isArray(env.events)) throw new Error('not a version-2 batch of events');
  return env.events;
}
