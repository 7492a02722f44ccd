/**
 * Writes every tick to an NDJSON file (`--record FILE`), one StreamMessage per line; replay it with
 * `--source replay:FILE`. Lifecycle: `createRecorder()` opens the file for appending; `close()`
 * flushes and resolves when the data is on disk.
 */
import { createWriteStream } from 'node:fs';
import type { Tick } from './sampler.ts';

/** An open recording. */
export interface Recorder {
  write(tick: Tick): void;
  close(): Promise<void>;
}

/** Opens `file` for appending. Write errors are reported once to `log` and recording stops. */
export function createRecorder(file: string, log: (m: string) => void = console.error): Recorder {
  const out = createWriteStream(file, { flags: 'a' });
  let failed = false;
  out.on('error', (e) => {
    if (!failed) log(`[record] cannot write ${file}: ${e.message}; recording stopped.`);
    failed = true;
  });
  return {
    write(tick) {
      if (!failed) out.write(`${tick.json}\n`);
    },
    close: () => new Promise((resolve) => out.end(() => resolve())),
  };
}
