/**
 * The service worker as a learner meets it: installed after one online visit (the precache complete), and a new
 * deploy's worker waiting for "Reload". Every wait is for the worker's own state, never a fixed time: a slower
 * machine only makes the test take longer, within the limit of the test that calls it (see INSTALL_MS).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, sep } from 'node:path';
import type { Page } from '@playwright/test';

/**
 * The limit of a test that installs the worker from nothing: it downloads the whole precache (~330 files), and
 * on a 2-core machine with both cores busy that takes many times what it takes on a quiet one (102 s seen in CI
 * while another suite ran beside it).
 */
export const INSTALL_MS = 180_000;

/** Opens `url` online and waits until its worker is active and controls the page: the site now works offline. */
export async function installOffline(page: Page, url = '/'): Promise<void> {
  await page.goto(url);
  // No timeout of its own: the install takes as long as the precache download; the test's limit bounds it.
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready; // resolves once a worker is active (the precache is stored)
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve));
    if (!reg.active) throw new Error('no active worker');
  });
}

/** A new deploy: the worker file changes, as a rebuild changes it (its precache list is the same). */
export function deployNewWorker(siteDir: string): void {
  const sw = join(siteDir, 'sw.js');
  writeFileSync(sw, `${readFileSync(sw, 'utf8')}\n// next deploy\n`);
}

/** Asks the browser to look for the new worker (as it does on a navigation) and waits until it is installed. */
export async function waitForUpdateInstalled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const reg = (await navigator.serviceWorker.getRegistration())!;
    await reg.update();
    const worker = reg.waiting ?? reg.installing;
    if (!worker) throw new Error('no new worker after update(): the deploy did not change sw.js');
    if (worker.state === 'installed') return;
    await new Promise<void>((resolve, reject) =>
      worker.addEventListener('statechange', () => {
        if (worker.state === 'installed') resolve();
        if (worker.state === 'redundant') reject(new Error('the new worker failed to install'));
      }),
    );
  });
}

/** The URLs a built worker precaches, as listed in its sw.js. */
export function precacheUrls(swSource: string): string[] {
  return [...swSource.matchAll(/"?url"?:"([^"]+)"/g)].map((m) => m[1]!);
}

/**
 * What a built worker's precache weighs (`dist`: the build folder): files listed, distinct files, bytes
 * uncompressed, and bytes as the browser downloads them from a host that compresses text (gzip level 6; Pagefind's
 * files and images are compressed already). An entry that names a page without "index.html" (older builds listed
 * "cards/x" beside "cards/x/index.html") is weighed as that page, so a page listed twice counts twice.
 */
export function precacheBytes(dist: string): { entries: number; files: number; raw: number; wire: number } {
  const urls = precacheUrls(readFileSync(`${dist}/sw.js`, 'utf8')).map((u) => decodeURIComponent(u));
  let raw = 0;
  let wire = 0;
  for (const u of urls) {
    const base = `${dist}/${u}`.replace(/\/$/, '');
    const file = [base, `${base}.html`, `${base}/index.html`].find((f) => existsSync(f) && statSync(f).isFile());
    if (!file) throw new Error(`precache entry ${u} is not in ${dist}/`);
    const body = readFileSync(file);
    raw += body.length;
    wire += /\.(html|js|css|json|svg|webmanifest|ico)$/.test(file) ? gzipSync(body, { level: 6 }).length : body.length;
  }
  return { entries: urls.length, files: new Set(urls).size, raw, wire };
}

/** The built pages (`dist`: the build folder) of the `…/index.html` kind that its worker does not precache. */
export function pagesNotPrecached(dist: string): { pages: number; missing: string[] } {
  const precached = new Set(precacheUrls(readFileSync(join(dist, 'sw.js'), 'utf8')).map((u) => decodeURIComponent(u)));
  const pages = (readdirSync(dist, { recursive: true }) as string[]).filter((f) => f.endsWith('.html'));
  return { pages: pages.length, missing: pages.filter((p) => !precached.has(p.split(sep).join('/'))) };
}
