/**
 * Replays an NDJSON recording (`--record FILE` writes one StreamMessage per line) in a loop, at the
 * pace it was recorded. Flagged simulated: it is not a live reading of this machine.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { StreamMessageSchema, type StreamMessage } from '../../src/protocol/metrics.ts';
import type { MetricSource, SourceReading } from './types.ts';

/** Parses a recording; bad lines are skipped and counted. @throws Error when nothing valid remains. */
export function parseRecording(text: string, name = 'recording'): { messages: StreamMessage[]; skipped: number } {
  const messages: StreamMessage[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = StreamMessageSchema.safeParse(JSON.parse(line));
      if (parsed.success) messages.push(parsed.data);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  if (messages.length === 0)
    throw new Error(
      `${name} has no valid samples (${skipped} bad lines): record one with \`npm run lab -- --record FILE\`.`,
    );
  messages.sort((a, b) => a.sampledAtMs - b.sampledAtMs);
  return { messages, skipped };
}

/** Creates a replay source for `file`. */
export function createReplaySource(file: string, options: { startMs?: number } = {}): MetricSource {
  const { messages, skipped } = parseRecording(readFileSync(file, 'utf8'), basename(file));
  const first = messages[0] as StreamMessage;
  const last = messages[messages.length - 1] as StreamMessage;
  // Loop length: the recording plus one typical gap, so the last sample shows as long as the others.
  const gap = messages.length > 1 ? (last.sampledAtMs - first.sampledAtMs) / (messages.length - 1) : 1000;
  const durationMs = Math.max(1, last.sampledAtMs - first.sampledAtMs + gap);
  let startMs = options.startMs ?? null;
  return {
    id: `replay:${basename(file)}`,
    simulated: true,
    reason: `replay of ${basename(file)}: ${messages.length} samples${skipped ? `, ${skipped} bad lines skipped` : ''}, recorded from ${first.source}`,
    devices: () =>
      first.gpus.map((g) => ({
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
      const offset = (nowMs - startMs) % durationMs;
      const target = first.sampledAtMs + offset;
      let lo = 0;
      let hi = messages.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((messages[mid] as StreamMessage).sampledAtMs <= target) lo = mid;
        else hi = mid - 1;
      }
      const m = messages[lo] as StreamMessage;
      return {
        gpus: m.gpus,
        host: m.host,
        throughput: m.throughput ? { ...m.throughput, reportedAtMs: nowMs, simulated: true } : null,
      };
    },
    close() {},
  };
}
