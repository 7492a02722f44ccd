/**
 * The churn half of the lab server bench (bench/server.ts): SSE clients that connect, read a while and drop,
 * over and over, as browser tabs do when they reload or sleep; and the wait for the server's memory to settle.
 * Run as `node bench/server-churn.ts <base> <token> <clients> <seconds>` it churns in a process of its own
 * and prints `{ opened, refused }` as JSON.
 */
import { get as httpGet } from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * `n` clients churning for `seconds`: each opens the stream, reads it 100–1000 ms, drops it and starts again
 * (after 100 ms when refused with 503 or failed). Resolves with the streams opened, the refusals and the failures.
 */
export async function churn(
  base: string,
  token: string,
  n: number,
  seconds: number,
): Promise<{ opened: number; refused: number; failed: number }> {
  const end = Date.now() + seconds * 1000;
  let opened = 0;
  let refused = 0;
  let failed = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      // A new socket per try (no keep-alive), as a reloading tab opens; a try without an answer in 2 s counts as failed.
      const req = httpGet(`${base}/api/stream?token=${token}`, { agent: false, timeout: 2000 }, (res) => {
        if (res.statusCode !== 200) {
          refused++;
          res.resume();
          return void setTimeout(resolve, 100);
        }
        opened++;
        res.resume();
        setTimeout(
          () => {
            req.destroy();
            resolve();
          },
          100 + Math.random() * 900,
        );
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 2 s')));
      req.on('error', () => {
        failed++;
        setTimeout(resolve, 100);
      });
    });
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  return { opened, refused, failed };
}

/** What `settle` saw: seconds until each reading was at most its target (null: not within the limit), and the last readings. */
export interface Settled {
  rssS: number | null;
  anonS: number | null;
  lastRssMb: number;
  lastAnonMb: number;
}

/**
 * Polls `read()` (RSS and anonymous RSS, MB) every 250 ms until both are at most their targets or `limitS` passes.
 * Anonymous RSS is the heap and buffers; the rest of RSS is the node binary's file pages, which the kernel
 * leaves resident until memory is short, so RSS alone can stay up with nothing held.
 */
export async function settle(
  read: () => { rssMb: number; anonMb: number },
  target: { rssMb: number; anonMb: number },
  limitS: number,
): Promise<Settled> {
  const t0 = Date.now();
  const out: Settled = { rssS: null, anonS: null, lastRssMb: NaN, lastAnonMb: NaN };
  for (;;) {
    const r = read();
    const s = (Date.now() - t0) / 1000;
    out.lastRssMb = r.rssMb;
    out.lastAnonMb = r.anonMb;
    if (out.rssS === null && r.rssMb <= target.rssMb) out.rssS = s;
    if (out.anonS === null && r.anonMb <= target.anonMb) out.anonS = s;
    if ((out.rssS !== null && out.anonS !== null) || s >= limitS) return out;
    await new Promise((res) => setTimeout(res, 250));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [base = '', token = '', n = '500', secs = '10'] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await churn(base, token, Number(n), Number(secs))));
  process.exit(0);
}
