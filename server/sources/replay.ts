/**
 * Replays an NDJSON recording (`--record FILE`, format in server/recording.ts) in a loop, at the
 * pace it was recorded, reading it line by line: memory stays flat whatever the file's size. The
 * time between two recording runs in one file (a header line starts each) is skipped: the next
 * run's first sample follows one interval after the last one. Flagged simulated: it is not a live
 * reading of this machine.
 */
import { basename } from 'node:path';
import { StreamMessageSchema, type StreamMessage } from '../../src/protocol/metrics.ts';
import { isHeader, LineReader } from '../recording.ts';
import type { MetricSource, SourceReading } from './types.ts';

/** One line of a recording: a sample, a run header (with its interval), or a bad line. */
export type RecordingLine = { message: StreamMessage } | { header: { intervalMs: number } } | { bad: true };

/** Parses one line of a recording. */
export function parseRecordingLine(line: string): RecordingLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { bad: true };
  }
  if (isHeader(value)) {
    const intervalMs = Number(value.recording.intervalMs);
    return { header: { intervalMs: Number.isFinite(intervalMs) && intervalMs > 0 ? intervalMs : 0 } };
  }
  const parsed = StreamMessageSchema.safeParse(value);
  return parsed.success ? { message: parsed.data } : { bad: true };
}

/** A sample and the time it plays at on the replay's own timeline (its recorded time less the gaps skipped). */
interface Placed {
  message: StreamMessage;
  atMs: number;
}

/**
 * Creates a replay source for `file`.
 * @throws Error when the file cannot be read or holds no valid sample.
 */
export function createReplaySource(file: string, options: { startMs?: number } = {}): MetricSource {
  const name = basename(file);
  const reader = new LineReader(file);
  let skipped = 0;
  let gapsSkipped = 0;
  let intervalMs = 0;
  /** Set when a header was read since the last sample: the next sample starts a new run. */
  let newRun = false;

  /** The next sample in the file (counting bad lines and headers on the way), or null at the end. */
  const nextMessage = (): StreamMessage | null => {
    for (let line = reader.next(); line !== null; line = reader.next()) {
      if (line.trim() === '') continue;
      const parsed = parseRecordingLine(line);
      if ('message' in parsed) return parsed.message;
      if ('header' in parsed) {
        newRun = true;
        if (parsed.header.intervalMs > 0) intervalMs = parsed.header.intervalMs;
      } else skipped++;
    }
    return null;
  };

  let first: StreamMessage | null;
  try {
    first = nextMessage();
  } catch (e) {
    reader.close();
    throw e;
  }
  if (first === null) {
    reader.close();
    throw new Error(
      `${name} has no valid samples (${skipped} bad lines): record one with \`npm start -- --record FILE\`.`,
    );
  }
  const origin: StreamMessage = first;
  newRun = false;
  let cur: Placed = { message: origin, atMs: origin.sampledAtMs };
  let skew = 0; // recorded time − replay time, grown by every gap skipped
  const place = (m: StreamMessage, after: Placed, looped: boolean): Placed => {
    const step = intervalMs > 0 ? intervalMs : 1000;
    const at = m.sampledAtMs - skew;
    // A new run, the loop back to the start, or a clock that went backwards: one interval after the previous sample.
    if (looped || newRun || at <= after.atMs) {
      if (at - after.atMs > step || at <= after.atMs) {
        skew += at - (after.atMs + step);
        if (!looped) gapsSkipped++;
      }
      newRun = false;
    }
    const placed = { message: m, atMs: m.sampledAtMs - skew };
    if (!newRun && intervalMs === 0 && placed.atMs > after.atMs) intervalMs = placed.atMs - after.atMs;
    return placed;
  };
  const readNext = (after: Placed): Placed => {
    const m = nextMessage();
    if (m !== null) return place(m, after, false);
    reader.rewind(); // the end: loop to the beginning, one interval after the last sample
    return place(nextMessage() ?? origin, after, true);
  };
  let next = readNext(cur);
  let startMs = options.startMs ?? null;

  return {
    id: `replay:${name}`,
    simulated: true,
    get reason() {
      const notes = [
        skipped ? `${skipped} bad lines skipped` : '',
        gapsSkipped ? `${gapsSkipped} gaps between recording runs skipped` : '',
      ].filter(Boolean);
      return `replay of ${name}, recorded from ${origin.source}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    },
    devices: () =>
      origin.gpus.map((g) => ({
        index: g.index,
        name: g.name,
        uuid: g.uuid,
        memTotalBytes: g.memTotalBytes,
        smClockMaxMhz: g.smClockMaxMhz,
        memClockMaxMhz: g.memClockMaxMhz,
        gpmSupported: g.smActivePct !== null,
      })),
    read(nowMs: number): SourceReading {
      startMs ??= nowMs;
      const target = origin.sampledAtMs + (nowMs - startMs);
      while (next.atMs <= target) {
        cur = next;
        next = readNext(cur);
      }
      const m = cur.message;
      return {
        gpus: m.gpus,
        host: m.host,
        throughput: m.throughput ? { ...m.throughput, reportedAtMs: nowMs, simulated: true } : null,
      };
    },
    close() {
      reader.close();
    },
  };
}
