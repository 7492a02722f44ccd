/**
 * /trace/ in Chromium against the budgets of issue #25, on the built site (npx astro build first):
 *   - JavaScript before a file is opened (gzip, as the e2e test counts it);
 *   - a 100 MB trace (a real trace's steps repeated, bench/trace-gen.ts) opened with the page's file picker,
 *     parsed and analysed by the page's own Worker in desktop Chromium: the page's own "Read 1 rank in X s";
 *   - the Worker's peak memory: its isolate's JS heap plus ArrayBuffer backing stores (typed arrays live
 *     there), from CDP `Runtime.getHeapUsage` on the worker target every 20 ms while it reads. Native buffers
 *     outside V8 (the file reader, DecompressionStream) are not in it;
 *   - the phone profile: 390×844, touch, 4× CPU throttling (CDP `Emulation.setCPUThrottlingRate` on the page
 *     and on its worker) on a 20 MB trace.
 *
 *   node bench/trace-browser.ts        prints a Markdown table
 */
import { chromium, type Page } from '@playwright/test';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { inlineScriptsGzip, watchScripts } from '../test/e2e/script-bytes.ts';
import { startSite } from '../test/e2e/site-server.ts';
import { Cdp } from './cdp.ts';
import { repeatedTrace } from './trace-gen.ts';

/** One run of the page on a trace. */
export interface TraceRun {
  bytes: number;
  /** The page's own figure: from the file chosen to the report ("Read 1 rank in X s"). */
  seconds: number;
  /** Peak of the worker's JS heap + ArrayBuffer backing stores, bytes; null when CDP did not report it. */
  workerPeakBytes: number | null;
  /** What the CPU throttling applied to ('page and worker', 'page only'), or '' when not throttled. */
  throttled: string;
}

export interface TraceBrowserResult {
  jsBeforeFileBytes: number;
  desktop: TraceRun;
  phone: TraceRun;
  browser: string;
}

const PORT = 9300 + Math.floor(Math.random() * 500);

/** Runs the benchmark on a private copy of dist/. */
export async function benchTraceBrowser(desktopMb = 100, phoneMb = 20): Promise<TraceBrowserResult> {
  const files = [desktopMb, phoneMb].map((mb) => {
    const file = join(tmpdir(), `saturate-trace-real-${mb}mb.json`);
    writeFileSync(file, [...repeatedTrace(mb * 1e6)].join(''));
    return file;
  });
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${PORT}`],
  });
  const cdp = await Cdp.connect(PORT);
  try {
    const desktopCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await desktopCtx.newPage();
    const scripts = watchScripts(page);
    await page.goto(`${site.url}/trace/`);
    await scripts.settled();
    const jsBeforeFileBytes = scripts.total() + (await inlineScriptsGzip(page));
    const desktop = await openFile(page, cdp, files[0]!, 1);
    const phoneCtx = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 3,
    });
    const phonePage = await phoneCtx.newPage();
    await phonePage.goto(`${site.url}/trace/`);
    const phone = await openFile(phonePage, cdp, files[1]!, 4);
    return { jsBeforeFileBytes, desktop, phone, browser: browser.version() };
  } finally {
    cdp.close();
    await browser.close();
    await site.dispose();
    for (const f of files) rmSync(f, { force: true });
  }
}

/** Opens `file` with the page's picker, watching the worker it starts; returns the page's own time. */
async function openFile(page: Page, cdp: Cdp, file: string, rate: number): Promise<TraceRun> {
  const url = page.url();
  const pageTarget = (await cdp.targets()).find((t) => t.type === 'page' && t.url === url);
  if (!pageTarget) throw new Error(`no CDP target for ${url}`);
  const pageSession = await cdp.attach(pageTarget.targetId);
  let throttled = '';
  if (rate > 1) {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate }, pageSession);
    throttled = 'page';
  }
  let peak: number | null = null;
  let polling: ReturnType<typeof setInterval> | undefined;
  // The worker starts with the first file: catch it paused, throttle it too, then let it run.
  cdp.onAttached(pageSession, async (workerSession, type) => {
    // Only the page's first dedicated worker is the reader; anything else attached is just let run.
    if (type !== 'worker' || polling !== undefined) {
      await cdp.send('Runtime.runIfWaitingForDebugger', {}, workerSession).catch(() => {});
      return;
    }
    if (rate > 1) {
      const refused = await cdp
        .send('Emulation.setCPUThrottlingRate', { rate }, workerSession)
        .then(() => '')
        .catch((e: Error) => e.message);
      throttled = refused ? `page (the worker target refused: ${refused})` : 'page and worker';
    }
    await cdp.send('Runtime.runIfWaitingForDebugger', {}, workerSession);
    polling = setInterval(() => {
      cdp
        .send('Runtime.getHeapUsage', {}, workerSession)
        .then((h) => {
          const used = Number(h['usedSize'] ?? 0) + Number(h['backingStorageSize'] ?? 0);
          peak = Math.max(peak ?? 0, used);
        })
        .catch(() => {});
    }, 20);
    polling.unref();
  });
  await cdp.send(
    'Target.setAutoAttach',
    { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
    pageSession,
  );
  await page.locator('[data-trace-input]').setInputFiles(file);
  const status = page.locator('[data-trace-status]');
  await status.filter({ hasText: /Read 1 rank in|could not|stopped|larger/ }).waitFor({ timeout: 600_000 });
  clearInterval(polling);
  const text = (await status.textContent()) ?? '';
  const m = /Read 1 rank in ([\d.]+) s/.exec(text);
  if (!m) throw new Error(`the page did not read ${file}: ${text}`);
  if (rate > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 }, pageSession);
  return { bytes: statSync(file).size, seconds: Number(m[1]), workerPeakBytes: peak, throttled };
}

/** The table for bench/report.md and the key rows' figures. */
export function traceBrowserMarkdown(r: TraceBrowserResult): string {
  const KB = 1024;
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const ratio = (x: number, budget: number) => `${(x / budget).toFixed(2)}× budget`;
  const mem = r.desktop.workerPeakBytes;
  return [
    '| measure | value | budget | ratio |',
    '|---|---|---|---|',
    `| /trace/ JavaScript before a file (gzip) | ${(r.jsBeforeFileBytes / KB).toFixed(1)} KB | 15 KB | ${ratio(r.jsBeforeFileBytes / KB, 15)} |`,
    `| ${mb(r.desktop.bytes)} MB trace, desktop Chromium (page's own time) | ${r.desktop.seconds.toFixed(1)} s | 5 s | ${ratio(r.desktop.seconds, 5)} |`,
    `| Worker peak memory on it (JS heap + ArrayBuffers) | ${mem === null ? 'not reported' : `${mb(mem)} MB = ${(mem / r.desktop.bytes).toFixed(2)}× the trace`} | 2× the trace | ${mem === null ? '–' : ratio(mem / r.desktop.bytes, 2)} |`,
    `| ${mb(r.phone.bytes)} MB trace, phone profile (390×844, 4× CPU on ${r.phone.throttled || 'nothing'}) | ${r.phone.seconds.toFixed(1)} s | works | read (${(r.phone.bytes / 1e6 / r.phone.seconds).toFixed(1)} MB/s) |`,
  ].join('\n');
}

if (import.meta.main) {
  const r = await benchTraceBrowser();
  console.log(`Chromium ${r.browser}\n\n${traceBrowserMarkdown(r)}`);
}
