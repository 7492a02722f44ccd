/**
 * The SSE fan-out: one subscription to the sampler for the whole server, one shared frame per tick
 * (encoded once), written straight to each client's Node response.
 *
 * Why not Hono's streamSSE: each write there goes through a WHATWG ReadableStream (promises, read
 * requests, a copy) before it reaches the socket. At 100 clients × 10 Hz that was most of the
 * server's CPU and the delay to the hundredth client; a direct `res.write` of a shared Buffer is not
 * (`node bench/server.ts`; see server/README.md for the figures).
 *
 * Per client: the seq of the last tick sent, the time of the last write (for heartbeats) and a
 * queue used only while its socket is congested. A client that stops reading lets its queue grow;
 * past MAX_QUEUE the server ends that stream (EventSource reconnects and resumes with
 * Last-Event-ID), so one slow tab cannot hold memory for everyone.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Sampler, Tick } from './sampler.ts';

/** Ticks queued for one congested client before it is dropped. */
export const MAX_QUEUE = 256;
/** Reconnect delay the browser is told to use, ms. */
const RETRY_MS = 1000;

/** Frames kept per hub: every client takes the newest tick's, a congested one a few behind. */
const FRAMES_KEPT = 16;

/**
 * Makes SSE frames, each encoded once and shared by every client, keeping the newest FRAMES_KEPT.
 * JSON.stringify never emits a raw newline, so one `data:` line is the whole framing. An older
 * frame (a resume after Last-Event-ID) is made again from the tick's message.
 */
function frameCache(bootId: string): (tick: Tick) => Buffer {
  const frames = new Map<Tick, Buffer>();
  return (tick) => {
    let frame = frames.get(tick);
    if (!frame) {
      frame = Buffer.from(`event: sample\nid: ${bootId}-${tick.message.seq}\ndata: ${tick.json}\n\n`);
      frames.set(tick, frame);
      if (frames.size > FRAMES_KEPT) frames.delete(frames.keys().next().value as Tick);
    }
    return frame;
  };
}

/** A fresh id for one server run: 8 hex characters. */
export function newBootId(): string {
  return randomBytes(4).toString('hex');
}

/**
 * Where a stream resumes from its Last-Event-ID: the seq after which to send what is missed, or null
 * for "start with the latest tick". An id of this run at or before the newest tick resumes; no id,
 * an id of another run (the server restarted), one ahead of the server, or one in any other shape
 * starts with the latest tick at once, never waiting for the counter to catch up.
 */
export function resumeAfter(lastEventId: string | undefined, bootId: string, latestSeq: number): number | null {
  const m = lastEventId === undefined ? null : /^([0-9a-f]{1,32})-(\d{1,15})$/.exec(lastEventId);
  if (!m || m[1] !== bootId) return null;
  const seq = Number(m[2]);
  return seq <= latestSeq ? seq : null;
}

interface Client {
  res: ServerResponse;
  lastSent: number;
  lastWriteMs: number;
  /** Ticks waiting for 'drain'; empty while the socket keeps up. */
  queue: Tick[];
  end(): void;
}

/** The hub's time: what time it is, and a repeating timer. Tests pass a hand-driven one. */
export interface HubClock {
  /** Ms since epoch. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called; must not keep the process alive. */
  every(ms: number, fn: () => void): () => void;
}

/** Real time: Date.now and an unref'd setInterval. */
export const SYSTEM_CLOCK: HubClock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Options for `createStreamHub`. */
export interface StreamHubOptions {
  sampler: Sampler;
  /** A heartbeat goes to a stream that got nothing for this long, ms. */
  heartbeatMs: number;
  /** Default SYSTEM_CLOCK. */
  clock?: HubClock;
  /** This server run's id: event ids are `<bootId>-<seq>`, so a resume can tell another run's ids. */
  bootId: string;
}

/** The server's open streams. */
export interface StreamHub {
  /** Open streams right now. */
  readonly size: number;
  /**
   * Starts streaming to `res`: what the client missed (ticks after `lastSeq` still in the ring, else
   * the latest tick), then every new tick. `headers` join the SSE headers (security, CORS).
   */
  attach(req: IncomingMessage, res: ServerResponse, lastSeq: number | null, headers: OutgoingHttpHeaders): void;
  /** Ends every stream and stops listening to the sampler. */
  close(): void;
}

/** Creates the hub; it subscribes to the sampler when the first client attaches. */
export function createStreamHub(options: StreamHubOptions): StreamHub {
  const { sampler, heartbeatMs } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const clients = new Set<Client>();
  const sseFrame = frameCache(options.bootId);
  let unsubscribe: (() => void) | null = null;
  let stopHeartbeat: (() => void) | null = null;

  const write = (client: Client, tick: Tick): void => {
    if (tick.message.seq <= client.lastSent) return;
    client.lastSent = tick.message.seq;
    client.lastWriteMs = clock.now();
    if (!client.res.write(sseFrame(tick))) client.res.once('drain', () => flush(client));
  };
  const flush = (client: Client): void => {
    while (client.queue.length > 0 && !client.res.writableNeedDrain && !client.res.destroyed)
      write(client, client.queue.shift() as Tick);
  };
  const onTick = (tick: Tick): void => {
    for (const client of clients) {
      if (client.res.writableNeedDrain || client.queue.length > 0) {
        client.queue.push(tick);
        // Drop it: destroy frees what its socket buffers hold now, where end() would wait for a reader that never comes.
        if (client.queue.length > MAX_QUEUE) client.res.destroy();
      } else write(client, tick);
    }
  };
  const beat = (): void => {
    const now = clock.now();
    for (const client of clients) {
      if (now - client.lastWriteMs < heartbeatMs || client.res.writableNeedDrain) continue;
      client.lastWriteMs = now;
      client.res.write(`event: heartbeat\ndata: ${now}\n\n`);
    }
  };
  const detach = (client: Client): void => {
    if (!clients.delete(client)) return;
    if (clients.size === 0) {
      unsubscribe?.();
      unsubscribe = null;
      stopHeartbeat?.();
      stopHeartbeat = null;
    }
  };

  return {
    get size() {
      return clients.size;
    },
    attach(req, res, lastSeq, headers) {
      const client: Client = {
        res,
        lastSent: lastSeq ?? 0,
        lastWriteMs: clock.now(),
        queue: [],
        end: () => {
          detach(client);
          if (!res.writableEnded) res.end();
        },
      };
      res.writeHead(200, {
        ...headers,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      res.socket?.setNoDelay(true);
      res.on('close', () => detach(client));
      res.on('error', () => client.end()); // a reset socket: 'close' follows
      clients.add(client);
      // Subscribe before reading the backlog so no tick falls between the two.
      unsubscribe ??= sampler.subscribe(onTick);
      // Checked 4 times a period: a heartbeat is at most a quarter period late.
      stopHeartbeat ??= clock.every(Math.max(10, Math.floor(heartbeatMs / 4)), beat);
      res.write(`retry: ${RETRY_MS}\n\n`);
      const latest = sampler.latest();
      const backlog = lastSeq === null ? (latest ? [latest] : []) : sampler.since(lastSeq);
      if (backlog.length === 0) res.write('event: hello\ndata: {}\n\n');
      client.queue.push(...backlog);
      flush(client);
    },
    close() {
      for (const client of [...clients]) client.end();
    },
  };
}
