/**
 * Checkpoints the SQLite store's write-ahead log on a worker thread, so the server's one event loop seldom waits
 * for it. node:sqlite is synchronous: with SQLite's automatic checkpoint every 1,000 WAL pages (4 MB), the push
 * that crosses them copies those pages into the database and syncs it while every other request waits.
 *
 * This worker opens a second connection to the same file and runs a PASSIVE checkpoint every `everyMs`: it never
 * blocks the writer, and it copies pages while requests are served. A checkpoint that runs beside writes rarely
 * ends with nothing left to copy, and only then does SQLite start the WAL over, so under steady pushes the WAL
 * would grow without end (measured: 850 MB in 9 s of back-to-back pushes). The store therefore keeps the automatic
 * checkpoint, at 64 MB (WAL_AUTOCHECKPOINT_PAGES): by then the worker has copied nearly everything, so the push
 * that runs it only copies the tail and syncs, 16 times less often than at 4 MB, and the WAL stays under 64 MB.
 *
 * Measured with `node bench/sync.ts --accounts=1000 --only=sqlite` (200 clients, a machine at load 3–4): the
 * database part of a push took p99 26.0 ms with SQLite's default checkpoints, 14.7 ms with this worker and the
 * 64 MB bound, and 11.5 ms with no checkpoint at all (a WAL that grows without end).
 */
import { Worker } from 'node:worker_threads';

/** WAL pages (4 KiB) at which the store's own connection checkpoints: the bound on the WAL, 64 MiB. */
export const WAL_AUTOCHECKPOINT_PAGES = 16_384;

/** Milliseconds between checkpoints. */
export const CHECKPOINT_EVERY_MS = 500;

// CommonJS, run with `eval`: no file to resolve, whatever loads this module (Node's type stripping, vitest).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA busy_timeout = 5000');
const run = () => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    /* busy or closing: the next round tries again */
  }
};
const timer = setInterval(run, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  run();
  db.close();
  parentPort.postMessage('stopped');
});
parentPort.postMessage('ready');
`;

export interface Checkpointer {
  /** Stops the worker after one last checkpoint; call before closing the store's own connection. */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing `file` (a WAL-mode SQLite database) every `everyMs` on a worker thread; resolves once the
 * worker has opened the file.
 * @example const c = await startCheckpointer('./sync-data/sync.sqlite'); await c.stop();
 */
export async function startCheckpointer(file: string, everyMs = CHECKPOINT_EVERY_MS): Promise<Checkpointer> {
  const worker = new Worker(WORKER, { eval: true, workerData: { file, everyMs } });
  worker.unref(); // never what keeps a server or a test alive
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  let stopped: Promise<void> | null = null;
  return {
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        worker.once('message', () => void worker.terminate().then(() => resolve()));
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      })),
  };
}
