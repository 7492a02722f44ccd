/**
 * Sync's cost in the browser: encrypting 10,000 progress events into sync items (HMAC item id + AES-GCM under the
 * account key, src/lib/sync/items.ts) and decrypting them back, both as one item an event (envelope version 1, the
 * first release) and packed and compressed several to an item (version 2, src/lib/sync/batch.ts, what is sent now), in Chromium, with and without 4× CPU throttling
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
  /** CPU throttling rate and format → encrypt and decrypt wall time (ms) for all events, and item JSON bytes. */
  runs: { rate: number; format: Format; encryptMs: number; decryptMs: number; itemBytes: number; items: number }[];
  browser: string;
  rows: [string, string][];
}

/** `single`: one item an event (version 1); `packed`: several events to a compressed item (version 2). */
export type Format = 'single' | 'packed';

const ENTRY = `
import { accountKeys, newSecret } from './src/lib/sync/keys.ts';
import { encryptItem, decryptItem } from './src/lib/sync/items.ts';
import { packEvents } from './src/lib/sync/batch.ts';
window.benchSync = async (events, format) => {
  const keys = await accountKeys(newSecret());
  const plains = format === 'packed'
    ? packEvents(events).map((run) => ({ kind: 'events', events: run }))
    : events.map((event) => ({ kind: 'event', event }));
  let t = performance.now();
  // 250 items at a time in flight, as a push request is encrypted (src/client/sync/engine.ts).
  const items = [];
  for (let i = 0; i < plains.length; i += 250)
    items.push(...(await Promise.all(plains.slice(i, i + 250).map((p) => encryptItem(keys, p)))));
  const encryptMs = performance.now() - t;
  t = performance.now();
  const back = await Promise.all(items.map((it) => decryptItem(keys, it)));
  const decryptMs = performance.now() - t;
  if (back.some((p) => 'skip' in p)) throw new Error('an item did not decrypt');
  const n = back.reduce((s, p) => s + (p.kind === 'events' ? p.events.length : 1), 0);
  if (n !== events.length) throw new Error(n + ' events came back of ' + events.length);
  return { encryptMs, decryptMs, itemBytes: JSON.stringify(items).length, items: items.length };
};`;

type Run = Omit<SyncBrowserResult['runs'][number], 'rate' | 'format'>;

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
    const run = (e: unknown[], format: Format) =>
      page.evaluate(
        ([e, f]) =>
          (window as never as { benchSync: (e: unknown[], f: Format) => Promise<Run> }).benchSync(e as unknown[], f),
        [e, format] as const,
      );
    for (const rate of rates)
      for (const format of ['single', 'packed'] as const) {
        await cdp.send('Emulation.setCPUThrottlingRate', { rate });
        // One warm-up pass at this rate (JIT, WebCrypto's first use), then the measured one.
        await run(events.slice(0, 500), format);
        runs.push({ rate, format, ...(await run(events, format)) });
      }
    const ms = (v: number) => `${Math.round(v)} ms`;
    const n = count.toLocaleString('en');
    const name = { single: 'one an item (v1)', packed: 'packed + compressed (v2)' };
    const base = (f: Format) => runs.find((r) => r.format === f && r.rate === rates[0])!;
    const rows: [string, string][] = runs.flatMap((r) => [
      [
        `encrypt ${n} events ${name[r.format]}, ${r.rate}× CPU throttling`,
        `${ms(r.encryptMs)} (${(r.encryptMs / base(r.format).encryptMs).toFixed(1)}× of 1×)`,
      ],
      [
        `decrypt ${n} events ${name[r.format]}, ${r.rate}× CPU throttling`,
        `${ms(r.decryptMs)} (${(r.decryptMs / base(r.format).decryptMs).toFixed(1)}× of 1×)`,
      ],
    ]);
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MB`;
    for (const f of ['single', 'packed'] as const)
      rows.push([
        `bytes on the wire, ${n} events ${name[f]} (item JSON)`,
        `${mb(base(f).itemBytes)} in ${base(f).items.toLocaleString('en')} items (${Math.round(base(f).itemBytes / count)} B an event)`,
      ]);
    rows.push([
      'packed ÷ one an item',
      `${(base('packed').itemBytes / base('single').itemBytes).toFixed(3)} (= ${base('packed').itemBytes} ÷ ${base('single').itemBytes})`,
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
