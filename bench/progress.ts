/**
 * Progress-store benchmark (Node): 50,000 answer events in a fake IndexedDB, then time to open the
 * store (read + validate + fold/restore the FSRS schedule) and to compute the stats page.
 * The Chromium figure comes from the e2e bench; this one checks the pure parts stay fast.
 *
 *   node bench/progress.ts            prints a Markdown table
 *   import { benchProgress } from './bench/progress.ts'   returns the numbers
 */
import { performance } from 'node:perf_hooks';
import { makeAnswerEvents } from '../test/fixtures/answer-events.ts';
import { ProgressEventSchema } from '../src/schemas/progress-event.ts';

export interface ProgressBenchResult {
  events: number;
  coldOpenMs: number;
  warmOpenMs: number;
  statsMs: number;
  fullFoldMs: number;
  validateMs: number;
  backupBytes: number;
  rows: [string, string][];
}

const time = async <T>(fn: () => T | Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
};

export async function benchProgress(count = 50_000): Promise<ProgressBenchResult> {
  if (typeof indexedDB === 'undefined') {
    // Node has no IndexedDB: use fake-indexeddb (the browser figure comes from the e2e benchmark).
    const fake = await import('fake-indexeddb');
    Object.assign(globalThis, { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange });
  }
  const { closeProgress, computeStats, createProgressStore, openProgress } = await import('../src/store/progress.ts');
  const { idbBackend } = await import('../src/store/backend.ts');
  const { buildSchedule } = await import('../src/lib/review.ts');
  const { backupToText, createBackup } = await import('../src/lib/backup.ts');
  const events = makeAnswerEvents(count);
  const now = events.at(-1)!.at + 3_600_000;
  const store = createProgressStore(`bench-${process.pid}-${Date.now()}`);
  await idbBackend(store).write([['meta', { schemaVersion: 2 }], ...events.map((e) => [`e:${e.id}`, e] as const)]);
  const opts = { tabs: false, storage: null } as const;

  const [, coldOpenMs] = await time(() => openProgress(opts, store)); // no schedule cache yet: full fold
  await closeProgress(store);
  await new Promise((r) => setTimeout(r, 50)); // let the cache write land
  const [p, warmOpenMs] = await time(() => openProgress(opts, store));
  const snap = p.snapshot();
  computeStats(snap, now, { tz: 'Europe/Berlin' }); // JIT warm-up
  const [, statsMs] = await time(() => computeStats(snap, now, { tz: 'Europe/Berlin' }));
  const [, fullFoldMs] = await time(() => buildSchedule(events));
  const [, validateMs] = await time(() => events.forEach((e) => ProgressEventSchema.parse(e)));
  const backupBytes = Buffer.byteLength(backupToText(createBackup(events, now)));
  await closeProgress(store);
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  const rows: [string, string][] = [
    ['answer events', count.toLocaleString('en')],
    ['open, cold (fake-indexeddb read + zod + full FSRS fold)', f(coldOpenMs)],
    ['open, warm (fake-indexeddb read + zod + cached schedule)', f(warmOpenMs)],
    ['computeStats (heatmap, topics, weakest, due in 7 days)', f(statsMs)],
    ['FSRS fold of every answer (no cache)', f(fullFoldMs)],
    ['zod validation of every event', f(validateMs)],
    ['backup file size', `${(backupBytes / 1024 / 1024).toFixed(2)} MB`],
  ];
  return { events: count, coldOpenMs, warmOpenMs, statsMs, fullFoldMs, validateMs, backupBytes, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchProgress();
  console.log(`| progress (Node ${process.version}) | |\n|---|---|`);
  for (const [k, v] of r.rows) console.log(`| ${k} | ${v} |`);
}
