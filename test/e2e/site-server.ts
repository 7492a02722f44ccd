/**
 * A private copy of the built site on its own lab-server instance, for tests that change the
 * deployment (a new service worker) or stop the server (offline with nothing listening).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SiteServer {
  /** Origin, e.g. http://127.0.0.1:41234 */
  url: string;
  /** The served copy of dist/. */
  dir: string;
  /** Stops the server (the site's files stay). */
  stop: () => Promise<void>;
  /** Stops the server and deletes the copy. */
  dispose: () => Promise<void>;
}

/** Copies dist/ and serves it on a free port; `port` reuses a fixed one (to restart on the same origin). */
export async function startSite(dir?: string, port = 0): Promise<SiteServer> {
  const root = dir ?? mkdtempSync(join(tmpdir(), 'saturate-site-'));
  if (!dir) cpSync('dist', root, { recursive: true });
  const child: ChildProcess = spawn(
    process.execPath,
    ['server/bin.mjs', '--port', String(port), '--source', 'sim:idle', '--static', root],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`site server did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`site server exited (${code}): ${out}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return {
    url,
    dir: root,
    stop,
    dispose: async () => {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
