/**
 * Sync's cost in the browser: encrypting 10,000 progress events into sync items (HMAC item id + AES-GCM under the
 * account key, src/lib/sync/items.ts) and decrypting them back, in Chromium, with and without 4× CPU throttling
 * (CDP `Emulation.setCPUThrottlingRate`, a mid-range phone's share of a laptop core). The library is bundled with
 * esbuild as it is, and run in a page on `localhost` (WebCrypto needs a secure context).
 *
 *   node bench/sync-browser.ts            prints a Markdown table
 *   import { benchSyncBrowser } from './bench/sync-browser.ts'   returns the numbers
 */
import { chromium } from '@playwright/test';
import { build } from 'esbuild';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { makeAnswerEvents } from '../test/fixtures/answer-events.ts';

export interface SyncBrowserResult {
  events: number;
  /** CPU throttling rate → encrypt and decrypt wall time (ms) for all events, and ciphertext bytes on the wire. */
  runs: { rate: number; encryptMs: number; decryptMs: number; itemBytes: number }[];
  browser: string;
  rows: [string, string][];
}

const ENTRY = `
import { accountKeys, newSecret } from './src/lib/sync/keys.ts';
import { encryptItem, decryptItem } from './src/lib/sync/items.ts';
window.benchSync = async (events) => {
  const keys = await accountKeys(newSecret());
  let t = performance.now();
  // In batches of 250 at a time, as the engine's pushes go (src/client/sync/engine.ts sends 500 a request).
  const items = [];
  for (let i = 0; i < events.length; i += 250)
    items.push(...(await Promise.all(events.slice(i, i + 250).map((event) => encryptItem(keys, { kind: 'event', event })))));
  const encryptMs = performance.now() - t;
  t = performance.now();
  const plains = await Promise.all(items.map((it) => decryptItem(keys, it)));
  const decryptMs = performance.now() - t;
  if (plains.some((p) => 'skip' in p)) throw new Error('an item did not decrypt');
  return { encryptMs, decryptMs, itemBytes: JSON.stringify(items).length };
};`;

/** Runs the benchmark (no build of the site needed). */
export async function benchSyncBrowser(count = 10_000, rates: readonly number[] = [1, 4]): Promise<SyncBrowserResult> {
  const bundle = await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
  });
  const script = bundle.outputFiles[0]!.text;
  const exe = chromiumPath();
  const browser = await chromium.launch({ ...(exe ? { executablePath: exe } : {}), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.route('http://localhost/bench', (r) =>
      r.fulfill({ contentType: 'text/html', body: `<!doctype html><title>bench</title><script>${script}</script>` }),
    );
    await page.goto('http://localhost/bench');
    const cdp = await page.context().newCDPSession(page);
    const events = makeAnswerEvents(count);
    const runs: SyncBrowserResult['runs'] = [];
    for (const rate of rates) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      // One warm-up pass at this rate (JIT, WebCrypto's first use), then the measured one.
      await page.evaluate(
        (e) => (window as never as { benchSync: (e: unknown[]) => Promise<unknown> }).benchSync(e),
        events.slice(0, 500),
      );
      const r = await page.evaluate(
        (e) =>
          (
            window as never as {
              benchSync: (e: unknown[]) => Promise<{ encryptMs: number; decryptMs: number; itemBytes: number }>;
            }
          ).benchSync(e),
        events,
      );
      runs.push({ rate, ...r });
    }
    const ms = (v: number) => `${Math.round(v)} ms`;
    const base = runs[0]!;
    const rows: [string, string][] = runs.flatMap((r) => [
      [
        `encrypt ${count.toLocaleString('en')} events, ${r.rate}× CPU throttling`,
        `${ms(r.encryptMs)} (${(r.encryptMs / base.encryptMs).toFixed(1)}× of 1×)`,
      ],
      [
        `decrypt ${count.toLocaleString('en')} events, ${r.rate}× CPU throttling`,
        `${ms(r.decryptMs)} (${(r.decryptMs / base.decryptMs).toFixed(1)}× of 1×)`,
      ],
    ]);
    rows.push([
      `items as JSON (${count.toLocaleString('en')} events)`,
      `${(base.itemBytes / 1024 / 1024).toFixed(2)} MB (${Math.round(base.itemBytes / count)} B an event)`,
    ]);
    return { events: count, runs, browser: `Chromium ${browser.version()}`, rows };
  } finally {
    await browser.close();
  }
}

if (import.meta.main) {
  const r = await benchSyncBrowser();
  console.log(`Sync in the browser (${r.browser})\n\n| measure | value |\n|---|---|`);
  for (const [k, v] of r.rows) console.log(`| ${k} | ${v} |`);
}
