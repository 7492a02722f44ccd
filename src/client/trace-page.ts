/**
 * Reads traces in the worker and shows progress, then the report (trace-render.ts). One job at a time: a new
 * file while one is read stops that one. The worker stays for the next file, so once the page's code is
 * loaded, reading a file makes no request at all. Loaded by trace-boot.ts on the first file.
 */
import type { TraceReport } from '../lib/trace/index.ts';
import { renderReport } from './trace-render.ts';

type Job = { files: File[] } | { sampleUrl: string };
type Out =
  | { type: 'progress'; file: string; bytes: number; total: number }
  | { type: 'done'; report: TraceReport }
  | { type: 'error'; message: string; code: string };

let worker: Worker | null = null;
let busy = false;

const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

/** Reads the files (or the sample) and renders the report in the page. */
export function readTraces(job: Job): void {
  const status = document.querySelector<HTMLElement>('[data-trace-status]')!;
  const out = document.querySelector<HTMLElement>('[data-trace-report]')!;
  if (busy) {
    worker?.terminate();
    worker = null;
  }
  worker ??= new Worker(new URL('./trace-worker.ts', import.meta.url), { type: 'module' });
  busy = true;
  const startedMs = performance.now();
  status.textContent = 'Reading…';
  status.classList.remove('bad');
  out.setAttribute('aria-busy', 'true');
  let lastShownMs = 0;
  worker.onmessage = (e: MessageEvent<Out>) => {
    const m = e.data;
    if (m.type === 'progress') {
      const now = performance.now();
      if (now - lastShownMs < 250) return;
      lastShownMs = now;
      status.textContent = `Reading ${m.file}: ${mb(m.bytes)}${m.total ? ` of ${mb(m.total)}` : ''}…`;
      return;
    }
    out.removeAttribute('aria-busy');
    busy = false;
    if (m.type === 'error') {
      status.textContent = m.message;
      status.classList.add('bad');
      return;
    }
    const s = ((performance.now() - startedMs) / 1000).toFixed(1);
    const n = m.report.ranks.length;
    status.textContent = `Read ${n} rank${n > 1 ? 's' : ''} in ${s} s, on this device.`;
    out.replaceChildren(renderReport(m.report));
    out.querySelector('h2')?.focus();
  };
  worker.onerror = (e) => {
    status.textContent = `The reader stopped: ${e.message}. Reload the page and try again.`;
    status.classList.add('bad');
    out.removeAttribute('aria-busy');
    worker?.terminate();
    worker = null;
    busy = false;
  };
  worker.postMessage(job);
}
