/**
 * Small Kineto-shaped traces for tests, written as the PyTorch profiler writes them: one event per line
 * group, `args.correlation` linking a runtime launch to its kernel, `ProfilerStep#N` user annotations.
 */

/** One trace event. */
export type Ev = Record<string, unknown>;

let corr = 1000;

/** A CPU op on the main thread. */
export const cpu = (name: string, ts: number, dur: number, tid = 1, cat = 'cpu_op'): Ev => ({
  ph: 'X',
  cat,
  name,
  pid: 1,
  tid,
  ts,
  dur,
  args: { 'External id': 1 },
});

/** A profiler step mark. */
export const step = (n: number, ts: number, dur: number): Ev => cpu(`ProfilerStep#${n}`, ts, dur, 1, 'user_annotation');

/** A launch call at `launchTs` (5 µs long) and its kernel on `stream`, starting at `kernelTs`. */
export function launch(
  kernelName: string,
  launchTs: number,
  kernelTs: number,
  kernelDur: number,
  stream = 7,
  cat = 'kernel',
  runtime = 'cudaLaunchKernel',
): Ev[] {
  const c = corr++;
  return [
    { ph: 'X', cat: 'cuda_runtime', name: runtime, pid: 1, tid: 1, ts: launchTs, dur: 5, args: { correlation: c } },
    { ph: 's', id: c, pid: 1, tid: 1, ts: launchTs, cat: 'ac2g', name: 'ac2g' },
    {
      ph: 'X',
      cat,
      name: kernelName,
      pid: 0,
      tid: stream,
      ts: kernelTs,
      dur: kernelDur,
      args: { device: 0, stream, correlation: c },
    },
    { ph: 'f', id: c, pid: 0, tid: stream, ts: kernelTs, cat: 'ac2g', name: 'ac2g', bp: 'e' },
  ];
}

/** The trace file's text, pretty-printed like Kineto's (one event per group of lines). */
export function traceText(events: Ev[], extra: Record<string, unknown> = {}): string {
  const head = Object.entries({
    schemaVersion: 1,
    deviceProperties: [{ id: 0, name: 'NVIDIA H100 80GB HBM3' }],
    ...extra,
  })
    .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
    .join('');
  return `{\n${head}  "traceEvents": [\n${events.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}\n  ],\n  "traceName": "t.json"\n}\n`;
}
