/**
 * One SSE client. On connect it sends what the client missed (ticks after Last-Event-ID still in
 * the ring, else the latest tick), then every new tick as event "sample" with id = seq, and a
 * "heartbeat" event when nothing was sent for `heartbeatMs`.
 *
 * State per client: a queue of ticks not yet written. A client that stops reading lets its queue
 * grow; past MAX_QUEUE the server ends that stream (the browser's EventSource reconnects and
 * resumes with Last-Event-ID), so one slow tab cannot hold memory for everyone.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Sampler, Tick } from './sampler.ts';

/** Ticks queued for one client before it is dropped. */
export const MAX_QUEUE = 256;
/** Reconnect delay the browser is told to use, ms. */
const RETRY_MS = 1000;

const frames = new WeakMap<Tick, Uint8Array>();
const encoder = new TextEncoder();

/**
 * A tick's SSE frame, encoded once and shared by every client. Hono's writeSSE would split and
 * re-encode the same ~8 KB per client (8 MB/s of garbage at 100 clients × 10 Hz); JSON.stringify
 * never emits a raw newline, so one `data:` line is the whole framing.
 */
export function sseFrame(tick: Tick): Uint8Array {
  let frame = frames.get(tick);
  if (!frame) {
    frame = encoder.encode(`event: sample\nid: ${tick.message.seq}\ndata: ${tick.json}\n\n`);
    frames.set(tick, frame);
  }
  return frame;
}

/** Options for one stream. */
export interface StreamOptions {
  sampler: Sampler;
  /** From Last-Event-ID: resume after this seq; null for a new client. */
  lastSeq: number | null;
  heartbeatMs: number;
  /** Open streams, each as its "end now" function; the server ends them all on close. */
  registry: Set<() => void>;
}

/** Streams ticks to one client as SSE (Hono's streamSSE does the framing). */
export function streamTicks(c: Context, options: StreamOptions): Response {
  const { sampler, heartbeatMs, registry } = options;
  const queue: Tick[] = [];
  let wake: (() => void) | null = null;
  let done = false;
  const end = (): void => {
    done = true;
    wake?.();
  };
  registry.add(end);
  // Subscribe before reading the backlog so no tick falls between the two.
  const unsubscribe = sampler.subscribe((tick) => {
    queue.push(tick);
    if (queue.length > MAX_QUEUE) end();
    wake?.();
  });
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    stream.onAbort(end);
    try {
      const latest = sampler.latest();
      const backlog = options.lastSeq === null ? (latest ? [latest] : []) : sampler.since(options.lastSeq);
      let lastSent = options.lastSeq ?? 0;
      let first = true;
      const send = async (tick: Tick): Promise<void> => {
        if (tick.message.seq <= lastSent) return;
        lastSent = tick.message.seq;
        if (first) await stream.writeSSE({ event: 'sample', id: String(tick.message.seq), data: tick.json, retry: RETRY_MS });
        else await stream.write(sseFrame(tick));
        first = false;
      };
      if (backlog.length === 0) {
        await stream.writeSSE({ event: 'hello', data: '{}', retry: RETRY_MS });
        first = false;
      }
      for (const tick of backlog) {
        if (done) break;
        await send(tick);
      }
      while (!done) {
        if (queue.length === 0) {
          const timedOut = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), heartbeatMs);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = null;
          if (timedOut && !done) await stream.writeSSE({ event: 'heartbeat', data: String(Date.now()) });
          continue;
        }
        await send(queue.shift() as Tick);
      }
    } finally {
      unsubscribe();
      registry.delete(end);
    }
  });
}
