/**
 * Progress-store benchmark in Chromium: 50,000 answer events seeded into the site's real
 * IndexedDB, then the progress page opened cold (no cached schedule: read + validate + full FSRS
 * fold) and warm (cached schedule), timing the store's open and the stats computation with the
 * User Timing measures the page records ('saturate:open-store', 'saturate:compute-stats'), and
 * the store's size on disk from navigator.storage.estimate().
 *
 *   npx astro build && node bench/progress-browser.ts     prints a Markdown table
 *   import { benchProgressBrowser } from './bench/progress-browser.ts'   returns the numbers
 */
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../test/e2e/browser.ts';
import { startSite } from '../test/e2e/site-server.ts';
import { makeAnswerEvents } from '../test/fixtures/answer-events.ts';

export interface ProgressBrowserResult {
  events: number;
  firstOpenMs: number;
  coldOpenMs: number;
  coldStatsMs: number;
  warmOpenMs: number;
  warmStatsMs: number;
  /** IndexedDB bytes (Chromium's usageDetails), or null where not reported. */
  indexedDbBytes: number | null;
  /** Everything the origin stores (IndexedDB + the offline cache of the site). */
  originBytes: number;
  browser: string;
  rows: [string, string][];
}

declare function keysLike(prefix: string): Promise<number>;
declare function deleteKey(key: string): Promise<void>;

/** Writes the events (and meta) straight into the store's database, as the store itself would. */
async function seed(page: Page, events: unknown[]): Promise<void> {
  await page.evaluate(async (evs) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('saturate');
      req.onupgradeneeded = () => req.result.createObjectStore('progress');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = db.transaction('progress', 'readwrite');
    const store = tx.objectStore('progress');
    store.put({ schemaVersion: 2 }, 'meta');
    for (const e of evs as { id: string }[]) store.put(e, `e:${e.id}`);
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, events);
}

interface PageTimes {
  openMs: number;
  statsMs: number;
  readMs: number;
  validateMs: number;
  scheduleMs: number;
}

/** Opens the progress page and returns the page's own measures once every event is counted. */
async function measureProgressPage(page: Page, url: string, count: number): Promise<PageTimes> {
  await page.goto(url);
  await page.locator(`[data-testid="dashboard"][data-events="${count}"]`).waitFor({ timeout: 120_000 });
  return page.evaluate(() => {
    const first = (name: string) => performance.getEntriesByName(name, 'measure')[0]?.duration ?? NaN;
    return {
      openMs: first('saturate:open-store'),
      statsMs: first('saturate:compute-stats'),
      readMs: first('saturate:open-read'),
      validateMs: first('saturate:open-validate'),
      scheduleMs: first('saturate:open-schedule'),
    };
  });
}

/** Runs the benchmark against a private copy of dist/ (build first). */
export async function benchProgressBrowser(count = 50_000): Promise<ProgressBrowserResult> {
  const site = await startSite();
  const executablePath = chromiumPath();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      const db = () =>
        new Promise<IDBDatabase>((resolve, reject) => {
          const req = indexedDB.open('saturate');
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
      const w = window as unknown as Record<string, unknown>;
      /** How many keys start with `prefix`. */
      w['keysLike'] = async (prefix: string) => {
        const d = await db();
        const keys = await new Promise<IDBValidKey[]>((resolve) => {
          const req = d.transaction('progress').objectStore('progress').getAllKeys();
          req.onsuccess = () => resolve(req.result);
        });
        d.close();
        return keys.filter((k) => String(k).startsWith(prefix)).length;
      };
      w['deleteKey'] = async (key: string) => {
        const d = await db();
        const tx = d.transaction('progress', 'readwrite');
        tx.objectStore('progress').delete(key);
        await new Promise((resolve) => (tx.oncomplete = resolve));
        d.close();
      };
    });
    const page = await context.newPage();
    await page.goto(`${site.url}/about/`);
    await seed(page, makeAnswerEvents(count));
    const first = await measureProgressPage(page, `${site.url}/progress/`, count);
    // The first open compacts the singles into chunks (with the log snapshot, cache:log) and caches the schedule, in the background.
    await page.waitForFunction(
      async () =>
        (await keysLike('cache:schedule')) === 1 && (await keysLike('cache:log')) === 1 && (await keysLike('e:')) === 0,
      undefined,
      { timeout: 120_000, polling: 250 },
    );
    const warm = await measureProgressPage(page, `${site.url}/progress/`, count);
    await page.evaluate(async () => {
      await deleteKey('cache:schedule');
      await deleteKey('cache:log');
    });
    const cold = await measureProgressPage(page, `${site.url}/progress/`, count);
    const estimate = await page.evaluate(async () => {
      const e = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
      return { usage: e.usage ?? 0, indexedDB: e.usageDetails?.indexedDB ?? null };
    });
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
    const rows: [string, string][] = [
      ['answer events', count.toLocaleString('en')],
      ['first open of 50,000 single-event records (then compacted into chunks)', f(first.openMs)],
      [
        '  read / validate / schedule + snapshot',
        `${f(first.readMs)} / ${f(first.validateMs)} / ${f(first.scheduleMs)}`,
      ],
      ['open store, warm (log snapshot + cached schedule)', f(warm.openMs)],
      ['  read / validate / schedule + snapshot', `${f(warm.readMs)} / ${f(warm.validateMs)} / ${f(warm.scheduleMs)}`],
      ['compute stats page (heatmap, topics, weakest, due, streak), warm', f(warm.statsMs)],
      ['open store, cold (chunks read and validated, full FSRS fold)', f(cold.openMs)],
      ['  read / validate / schedule + snapshot', `${f(cold.readMs)} / ${f(cold.validateMs)} / ${f(cold.scheduleMs)}`],
      ['compute stats page, after the cold open', f(cold.statsMs)],
      [
        'store size on disk (IndexedDB, estimate().usageDetails)',
        estimate.indexedDB === null ? 'not reported' : mb(estimate.indexedDB),
      ],
      ['origin total (IndexedDB + offline cache), estimate().usage', mb(estimate.usage)],
    ];
    return {
      events: count,
      firstOpenMs: first.openMs,
      coldOpenMs: cold.openMs,
      coldStatsMs: cold.statsMs,
      warmOpenMs: warm.openMs,
      warmStatsMs: warm.statsMs,
      indexedDbBytes: estimate.indexedDB,
      originBytes: estimate.usage,
      browser: `Chromium ${browser.version()}`,
      rows,
    };
  } finally {
    await browser.close();
    await site.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchProgressBrowser();
  console.log(`| progress (${r.browser}) | |\n|---|---|`);
  for (const [k, v] of r.rows) console.log(`| ${k} | ${v} |`);
}
