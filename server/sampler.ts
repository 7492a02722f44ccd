/**
 * One sampling loop for the whole server, a ring buffer of recent ticks and fan-out to subscribers.
 *
 * Shape: each tick is a `Tick` = { message (StreamMessage), json (serialised once) }, kept in a
 * ring of `capacity` entries indexed by seq (1, 2, 3, …) so a client reconnecting with
 * Last-Event-ID gets every tick it missed while they are still in the ring.
 * Lifecycle: `createSampler()` → `start()` (ticks every `intervalMs`, drift-free) → `stop()`;
 * `tick()` samples once on demand (tests drive it by hand with a fixed clock). `close()` stops and
 * closes the source. A tick that throws is reported to `onError` and skipped; the loop goes on.
 */
import type { StreamMessage, Throughput, ThroughputReport } from '../src/protocol/metrics.ts';
import { DEFAULTS } from './defaults.ts';
import type { MetricSource } from './sources/types.ts';

/**
 * A tick: its message, and the message as JSON. The ring keeps 1,200 ticks, so a tick keeps only its
 * message and makes the JSON on each read (the SSE hub caches the frames of the newest few): holding
 * every tick's JSON too cost ~17 MB of RSS at 10 Hz with 8 GPUs once the ring was full.
 */
export interface Tick {
  readonly message: StreamMessage;
  readonly json: string;
}

class MessageTick implements Tick {
  readonly message: StreamMessage;
  constructor(message: StreamMessage) {
    this.message = message;
  }
  get json(): string {
    return JSON.stringify(this.message);
  }
}

/** Options for `createSampler`. */
export interface SamplerOptions {
  source: MetricSource;
  /** Milliseconds between ticks (the CLI enforces ≥ 100). */
  intervalMs: number;
  /** Ticks kept for resume; default DEFAULTS.capacity. */
  capacity?: number;
  /** Clock, ms since epoch; tests pass a fixed one. */
  now?: () => number;
  /** A reported throughput older than this is dropped from the stream; default 10 s. */
  throughputMaxAgeMs?: number;
  /** Called with every tick (the recorder). */
  onTick?: (tick: Tick) => void;
  onError?: (error: unknown) => void;
}

/** The sampler's API. */
export interface Sampler {
  readonly source: MetricSource;
  readonly intervalMs: number;
  start(): void;
  stop(): void;
  /** Samples now, stores and fans out the tick, and returns it. */
  tick(): Tick;
  /** The newest tick, or null before the first. */
  latest(): Tick | null;
  /** Ticks with seq > `afterSeq` still in the ring, oldest first. */
  since(afterSeq: number): Tick[];
  /** Calls `fn` with every new tick until the returned function is called. */
  subscribe(fn: (tick: Tick) => void): () => void;
  /** Records a training loop's throughput; it joins the next ticks. */
  reportThroughput(report: ThroughputReport): Throughput;
  /** Stops and closes the source. */
  close(): void;
}

/** Creates a sampler over `source`; it does not tick until `start()` or `tick()`. */
export function createSampler(options: SamplerOptions): Sampler {
  const { source, intervalMs } = options;
  const capacity = Math.max(1, options.capacity ?? DEFAULTS.capacity);
  const now = options.now ?? Date.now;
  const maxAge = options.throughputMaxAgeMs ?? 10_000;
  const ring: (Tick | undefined)[] = new Array(capacity);
  const subscribers = new Set<(tick: Tick) => void>();
  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let reported: Throughput | null = null;
  let closed = false;

  const tick = (): Tick => {
    const sampledAtMs = now();
    const reading = source.read(sampledAtMs);
    const fresh = reported && sampledAtMs - reported.reportedAtMs <= maxAge ? reported : null;
    const message: StreamMessage = {
      seq: ++seq,
      sampledAtMs,
      source: source.id,
      simulated: source.simulated,
      reason: source.reason,
      gpus: reading.gpus,
      host: reading.host,
      throughput: fresh ?? reading.throughput,
    };
    const entry: Tick = new MessageTick(message);
    ring[seq % capacity] = entry;
    options.onTick?.(entry);
    for (const fn of subscribers) {
      try {
        fn(entry);
      } catch (e) {
        options.onError?.(e);
      }
    }
    return entry;
  };

  const schedule = (due: number): void => {
    timer = setTimeout(
      () => {
        if (timer === null) return;
        try {
          tick();
        } catch (e) {
          options.onError?.(e);
        }
        // Drift-free: aim at the next multiple of the interval; skip ticks a slow read overran.
        let next = due + intervalMs;
        const t = now();
        if (next <= t) next = t + intervalMs - ((t - due) % intervalMs);
        schedule(next);
      },
      Math.max(0, due - now()),
    );
  };

  return {
    source,
    intervalMs,
    start() {
      if (timer !== null || closed) return;
      schedule(now() + intervalMs);
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
    tick,
    latest: () => (seq === 0 ? null : (ring[seq % capacity] ?? null)),
    since(afterSeq) {
      const from = Math.max(afterSeq + 1, seq - capacity + 1, 1);
      const out: Tick[] = [];
      for (let s = from; s <= seq; s++) {
        const t = ring[s % capacity];
        if (t && t.message.seq === s) out.push(t);
      }
      return out;
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    reportThroughput(report) {
      reported = {
        samplesPerSec: report.samplesPerSec ?? null,
        tokensPerSec: report.tokensPerSec ?? null,
        stepsPerSec: report.stepsPerSec ?? null,
        flopsPerUnit: report.flopsPerUnit ?? null,
        dataWaitFraction: report.dataWaitFraction ?? null,
        label: report.label ?? null,
        reportedAtMs: now(),
        simulated: false,
      };
      return reported;
    },
    close() {
      if (closed) return;
      closed = true;
      this.stop();
      subscribers.clear();
      source.close();
    },
  };
}
