/**
 * Large traces made from a real one: the events of a real Kineto trace (HTA's MIT-licensed sampled rank 0, the
 * site's sample) repeated step after step, each copy shifted in time by the trace's span and with fresh
 * correlation, External id, flow id and `ProfilerStep#N` numbers, one event a line as Kineto writes them. Used
 * by the browser benchmark (100 MB and 20 MB files) and the 2 GB check (a stream that is never written to disk).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The real trace the copies are made from. */
export const SOURCE_TRACE = join(import.meta.dirname, '../test/fixtures/trace/hta-sampled-rank-0.json.gz');

interface Ev {
  ph?: string;
  name?: unknown;
  ts?: number;
  dur?: number;
  id?: number;
  args?: Record<string, unknown>;
}

/**
 * Text chunks of a trace of at least `bytes` bytes (ASCII, so characters = bytes), about one copy of the source
 * trace per chunk: the head, the events repeated, then the tail.
 */
export function* repeatedTrace(bytes: number, source = SOURCE_TRACE): Generator<string> {
  const doc = JSON.parse(gunzipSync(readFileSync(source)).toString('utf8')) as Record<string, unknown>;
  const events = doc['traceEvents'] as Ev[];
  let t0 = Infinity;
  let t1 = -Infinity;
  let maxId = 0;
  let minStep = Infinity;
  let maxStep = -Infinity;
  for (const e of events) {
    if (typeof e.ts === 'number') {
      t0 = Math.min(t0, e.ts);
      t1 = Math.max(t1, e.ts + (e.dur ?? 0));
    }
    maxId = Math.max(
      maxId,
      Number(e.id ?? 0),
      Number(e.args?.['correlation'] ?? 0),
      Number(e.args?.['External id'] ?? 0),
    );
    const step = typeof e.name === 'string' ? /^ProfilerStep#(\d+)$/.exec(e.name) : null;
    if (step) {
      minStep = Math.min(minStep, Number(step[1]));
      maxStep = Math.max(maxStep, Number(step[1]));
    }
  }
  const span = Math.ceil(t1 - t0) + 1000;
  const steps = Number.isFinite(minStep) ? maxStep - minStep + 1 : 0;
  const rest = { ...doc };
  delete rest['traceEvents'];
  const head = `{\n  ${Object.entries(rest)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(',\n  ')},\n  "traceEvents": [\n`;
  const tail = '\n  ],\n  "traceName": "repeated"\n}\n';
  let written = head.length + tail.length;
  yield head;
  for (let r = 0; written < bytes; r++) {
    const shift = r * span;
    const ids = r * (maxId + 1);
    const lines = events.map((e) => {
      const c: Ev = { ...e };
      if (typeof c.ts === 'number') c.ts += shift;
      if (typeof c.id === 'number') c.id += ids;
      if (typeof c.name === 'string' && c.name.startsWith('ProfilerStep#'))
        c.name = `ProfilerStep#${Number(c.name.slice(13)) + r * steps}`;
      if (c.args) {
        c.args = { ...c.args };
        for (const k of ['correlation', 'External id'])
          if (typeof c.args[k] === 'number') c.args[k] = (c.args[k] as number) + ids;
      }
      return `  ${JSON.stringify(c)}`;
    });
    const chunk = `${r === 0 ? '' : ',\n'}${lines.join(',\n')}`;
    written += chunk.length;
    yield chunk;
  }
  yield tail;
}

/** The same trace as a byte stream, generated as it is read (nothing on disk, one copy in memory at a time). */
export function repeatedTraceStream(bytes: number): ReadableStream<Uint8Array> {
  const it = repeatedTrace(bytes);
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(ctl) {
      const next = it.next();
      if (next.done) ctl.close();
      else ctl.enqueue(enc.encode(next.value));
    },
  });
}
