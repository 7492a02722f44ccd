/**
 * The trace page's worker: reads each file as a stream (gzip through DecompressionStream), parses it chunk by
 * chunk into the compact table, analyses all ranks together and posts the report. Nothing leaves the device:
 * the only request it can make is for the site's own sample trace, when asked to.
 *
 * Messages in: `{ files: File[] }` or `{ sampleUrl: string }`. Out: `{ type: 'progress', file, bytes, total }`,
 * `{ type: 'done', report }` or `{ type: 'error', message, code }`.
 */
import { analyzeTraces, parseTraceStream, TraceError, type TraceInput } from '../lib/trace/index.ts';

type In = { files: File[] } | { sampleUrl: string };

/**
 * Events one trace may keep here: about a sixteenth of the device's memory at 44 bytes an event
 * (navigator.deviceMemory, GB, capped at 8 by Chromium; 4 where the browser does not say). 8 GB: 11.4 M events,
 * more than a 2 GB trace holds; a 4 GB phone: 5.7 M. Beyond it the reader says the trace is too large for this
 * device instead of running out of memory, which would take the page down with the worker.
 */
const deviceGb = (navigator as Navigator & { deviceMemory?: number }).deviceMemory ?? 4;
const maxEvents = Math.floor((deviceGb * 1e9) / 16 / 44);

const post = (m: unknown) => (self as unknown as Worker).postMessage(m);

self.onmessage = async (e: MessageEvent<In>) => {
  try {
    const inputs: TraceInput[] = [];
    if ('files' in e.data) {
      for (const file of e.data.files) {
        const trace = await parseTraceStream(
          file.stream(),
          (bytes) => post({ type: 'progress', file: file.name, bytes, total: file.size }),
          { maxEvents },
        ).catch((x: unknown) => {
          throw x instanceof TraceError ? new TraceError(x.code, `${file.name}: ${x.message}`) : x;
        });
        inputs.push({ label: file.name, trace });
      }
    } else {
      const res = await fetch(e.data.sampleUrl);
      if (!res.ok || !res.body) throw new TraceError('read', `The sample trace did not load (HTTP ${res.status}).`);
      const total = Number(res.headers.get('content-length') ?? 0);
      const name = e.data.sampleUrl.split('/').pop() ?? 'sample';
      const trace = await parseTraceStream(res.body, (bytes) => post({ type: 'progress', file: name, bytes, total }));
      inputs.push({ label: name, trace });
    }
    post({ type: 'done', report: analyzeTraces(inputs) });
  } catch (x) {
    post({
      type: 'error',
      code: x instanceof TraceError ? x.code : 'read',
      message:
        x instanceof TraceError
          ? x.message
          : `The trace could not be read (${(x as Error).message}). If it is very large, close other tabs and try again.`,
    });
  }
};
