/**
 * The site as a phone gets it: built with BASE_PATH=/saturate/ into dist-base/ (`npm test` builds it),
 * served over real HTTPS on 127.0.0.1 under /saturate/ by a static host that applies the build's own
 * `_headers` (test/https/host.ts). Chromium trusts the test's self-signed certificate through
 * --ignore-certificate-errors-spki-list, so the service worker and installability see a valid HTTPS origin.
 */
import { test, expect, chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { axe } from './axe.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, testChromiumPath } from './browser.ts';
import { makeCert, startHttpsSite, type HttpsSite, type TestCert } from '../https/host.ts';
import { builtCardPaths, spreadOver } from './deck.ts';
import { E2E_PORT } from './ports.ts';
import {
  deployNewWorker,
  installOffline,
  INSTALL_MS,
  pagesNotPrecached,
  precacheUrls,
  waitForUpdateInstalled,
} from './sw.ts';

const DIR = 'dist-base';
const BASE = '/saturate/';
const executablePath = testChromiumPath();
/** The lab server's port in the lab test: beside the e2e server's ($E2E_PORT + 11). */
const LAB_PORT = E2E_PORT + 11;

let cert: TestCert;
let site: HttpsSite;
let browser: Browser;

const launchArgs = (extra: string[] = []) => ({
  ...(executablePath ? { executablePath } : {}),
  args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${cert.spkiSha256}`, ...extra],
});

test.beforeAll(async () => {
  cert = makeCert();
  site = await startHttpsSite({ dir: DIR, cert });
  browser = await chromium.launch(launchArgs());
});
test.afterAll(async () => {
  await browser?.close();
  await site?.dispose();
});

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return htmlFiles(path);
    return name.endsWith('.html') ? [path] : [];
  });
}

test('the base-path build leaves no root-absolute URL outside /saturate/', () => {
  const offenders: string[] = [];
  const files = htmlFiles(DIR);
  expect(files.length).toBeGreaterThan(40);
  for (const file of files) {
    const html = readFileSync(file, 'utf8');
    // href="/x", src='/x', srcset=/x, action=…, also unquoted: every URL attribute must start with the base.
    for (const m of html.matchAll(/\s(href|src|srcset|action|poster|component-url|renderer-url)=["']?(\/[^"'\s>]*)/g))
      if (!m[2]!.startsWith(BASE) && !m[2]!.startsWith('//')) offenders.push(`${file}: ${m[1]}="${m[2]}"`);
  }
  expect(offenders).toEqual([]);
  const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.webmanifest'), 'utf8'));
  expect(manifest).toMatchObject({ id: BASE, start_url: BASE, scope: BASE });
  // SITE_URL + base: the canonical URL of a card is in the sitemap as it is.
  const card = readFileSync(join(DIR, 'cards/gpu-util/index.html'), 'utf8');
  const canonical = /<link rel="canonical" href="([^"]+)"/.exec(card)?.[1] ?? '';
  expect(canonical).toMatch(new RegExp(`^https://[^/]+${BASE}cards/gpu-util/$`));
  expect(readFileSync(join(DIR, 'sitemap.xml'), 'utf8')).toContain(`<loc>${canonical}</loc>`);
  // Precache URLs are relative to sw.js (so under the base) or carry it; none points at the host's root. (The worker
  // takes its base from its scope; the offline test below checks that its offline page is the one under the base.)
  const urls = precacheUrls(readFileSync(join(DIR, 'sw.js'), 'utf8'));
  expect(urls).toContain('offline/index.html');
  expect(urls.filter((u) => u.startsWith('/') && !u.startsWith(BASE))).toEqual([]);
});

test('the host config: worker and manifest revalidated, hashed assets immutable, manifest MIME type', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const get = (path: string) => context.request.get(`${site.origin}${path}`, { maxRedirects: 0 });
    const sw = await get(`${BASE}sw.js`);
    expect(sw.status()).toBe(200);
    expect(sw.headers()['cache-control']).toBe('public, max-age=0, must-revalidate');
    const manifest = await get(`${BASE}manifest.webmanifest`);
    expect(manifest.headers()['content-type']).toMatch(/^application\/manifest\+json/);
    const css = readdirSync(join(DIR, '_astro')).find((f) => f.endsWith('.css'))!;
    expect((await get(`${BASE}_astro/${css}`)).headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    const page = await get(`${BASE}cards/gpu-util/`);
    expect(page.status()).toBe(200);
    expect(page.headers()['cache-control'] ?? '').not.toMatch(/immutable|max-age=[1-9]/);
    // A directory URL without its slash is redirected, as GitHub Pages and Netlify do.
    const bare = await get(`${BASE}cards/gpu-util`);
    expect(bare.status()).toBe(301);
    expect(bare.headers()['location']).toBe(`${BASE}cards/gpu-util/`);
  } finally {
    await context.close();
  }
});

test('Chrome finds the sub-path app installable over HTTPS (persistent profile)', async () => {
  test.setTimeout(INSTALL_MS); // a fresh profile precaches the whole site
  const dir = mkdtempSync(join(tmpdir(), 'saturate-profile-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(dir, { ...launchArgs(), ignoreHTTPSErrors: true });
    const page = context.pages()[0] ?? (await context.newPage());
    await installOffline(page, site.url);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors.map((e) => e.errorId)).toEqual([]);
    const reg = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return { scope: r.scope, script: r.active?.scriptURL };
    });
    expect(reg).toEqual({ scope: site.url, script: `${site.url}sw.js` });
  } finally {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.describe('offline over HTTPS under the base, after one online visit', () => {
  let context: BrowserContext;
  let page: Page;
  test.beforeAll(async () => {
    test.setTimeout(INSTALL_MS);
    context = await browser.newContext({ ignoreHTTPSErrors: true });
    page = await context.newPage();
    await installOffline(page, site.url);
    await context.setOffline(true);
  });
  test.afterAll(async () => {
    await context?.close();
  });

  const cards = builtCardPaths(DIR);
  test('the deck is under the base', () => {
    expect(cards.length).toBeGreaterThan(20);
    expect(cards.every((href) => href.startsWith(`${BASE}cards/`))).toBe(true);
  });

  // Five cards spread over the deck, each with and without its slash; every page is in the precache (checked below).
  const spread = spreadOver(cards);
  test(`cards across the deck open offline with and without the slash (${spread.length} of ${cards.length})`, async () => {
    for (const href of spread)
      for (const variant of [href, href.replace(/\/$/, '')]) {
        await page.goto(`${site.origin}${variant}`);
        await expect(page.getByRole('heading', { level: 2, name: 'One canonical example' })).toBeVisible();
      }
  });

  test('every page of the sub-path build is in its precache, as its index.html', () => {
    const { pages, missing } = pagesNotPrecached(DIR);
    expect(pages).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  test('a practice quiz, search and the offline page work offline under the base', async () => {
    // A practice quiz draws from the cached question bank.
    await page.goto(`${site.url}practice/random/?seed=offline`);
    const quiz = page.locator('section.quiz');
    await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 1 of \d+/);
    await expect(page.getByText(/You're offline/).first()).toBeVisible();
    // Answer whatever kind the seed drew first (one pick, several then Check, or a number then Check).
    const numeric = quiz.locator('input[inputmode="decimal"]');
    if (await numeric.count()) {
      await numeric.fill('1');
      await quiz.getByRole('button', { name: 'Check' }).click();
    } else {
      await quiz.locator('[data-option]').first().click();
      const check = quiz.getByRole('button', { name: 'Check answer' });
      if (await check.count()) await check.click();
    }
    await expect(quiz.locator('.feedback h3')).toBeVisible();
    // A role quiz takes its questions from the cached bank under the base.
    await page.goto(`${site.url}roles/ml-engineer/quiz/`);
    await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 1 of 30/);
    // Search loads its index from the cache, and its results link under the base.
    await page.goto(`${site.url}search/`);
    await page.getByRole('searchbox').fill('kernel');
    const first = page.locator('[data-search-results] li a').first();
    await expect(first).toBeVisible();
    expect(await first.getAttribute('href')).toMatch(new RegExp(`^${BASE}cards/`));
    await first.click();
    await expect(page.locator('article[data-card-id] h1')).toBeVisible();
    // An unknown page offline gets the offline page from under the base.
    await page.goto(`${site.url}cards/not-downloaded-yet/`);
    await expect(page.getByRole('heading', { level: 1, name: "You're offline" })).toBeVisible();
  });
});

test('a new deploy on the HTTPS host shows "New cards available" and reloads into the new worker', async () => {
  test.setTimeout(INSTALL_MS); // a fresh context precaches the whole site
  const copy = await startHttpsSite({ dir: DIR, cert, copy: true });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await installOffline(page, copy.url);
    await expect(page.locator('[data-update]')).toBeHidden();
    deployNewWorker(copy.dir);
    await waitForUpdateInstalled(page);
    // Within a few seconds of the new worker's "installed", on a loaded machine too.
    const banner = page.locator('[data-update]');
    await expect(banner).toBeVisible({ timeout: 5_000 });
    await expect(banner).toContainText('New cards available');
    await Promise.all([page.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
    await expect(page.locator('[data-update]')).toBeHidden();
    expect(await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.waiting)).toBe(false);
    expect(page.url()).toBe(copy.url);
  } finally {
    await context.close();
    await copy.dispose();
  }
});

test.describe('the hosted lab page calls the learner’s own lab server', () => {
  let lab: ChildProcess | null = null;
  test.afterEach(() => {
    lab?.kill('SIGTERM');
    lab = null;
  });

  test('an HTTPS origin’s lab page streams from a loopback lab server started with --allow-origin', async () => {
    // It starts a lab server and waits for the hosted page to stream from it: 21 s with other tests running (35% of
    // the 60 s default), so it gets the limit of the other lab-server tests.
    test.setTimeout(120_000);
    const token = 'https-e2e-token-0123456789';
    // Chromium treats the HTTPS site as a public website (as GitHub Pages is), so calling 127.0.0.1
    // is a Local Network Access request: the learner's permission, which the test grants.
    const publicBrowser = await chromium.launch(
      launchArgs([`--ip-address-space-overrides=127.0.0.1:${site.port}=public`]),
    );
    try {
      const context = await publicBrowser.newContext({ ignoreHTTPSErrors: true });
      await context.grantPermissions(['local-network-access'], { origin: site.origin });
      const page = await context.newPage();
      await page.goto(`${site.url}labs/busy-in-time/`);
      await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
      await page.getByRole('button', { name: 'Use a lab server' }).click();
      const command = page.locator('[data-lab-command] code');
      await expect(command).toHaveText(`npm start -- --allow-origin ${site.origin}`);
      await expect(page.locator('[data-lab-command]')).toContainText('A phone cannot reach a lab server');
      const copy = page.locator('[data-lab-command]').getByRole('button', { name: 'Copy' });
      expect((await copy.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
      await copy.click();
      await expect(page.locator('[data-lab-command] [role="status"]')).toHaveText('Copied.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        `npm start -- --allow-origin ${site.origin}`,
      );
      const { violations } = await axe(page)
        .include('.lab-connect')
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
        .analyze();
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

      // The learner runs that line (here: the lab server alone, which `npm start` launches).
      const flags = (await command.innerText()).split(' -- ')[1]!.split(' ');
      lab = spawn(
        process.execPath,
        ['server/bin.mjs', '--port', String(LAB_PORT), '--source', 'sim:small-kernels', '--token', token, ...flags],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const url = await labUrl(lab);
      await page.getByLabel('Lab server URL, with its token').fill(url);
      await page.getByRole('button', { name: 'Connect' }).click();
      const banner = page.locator('.lab-banner');
      await expect(banner).toContainText('sim:small-kernels');
      await expect(banner).toContainText(`by the lab server at 127.0.0.1:${new URL(url).port}`);
      await expect(page.getByTestId('step-state-read-both-meters')).toHaveText('Passed', { timeout: 25_000 });
    } finally {
      await publicBrowser.close();
    }
  });
});

/** The URL (with token) a lab server prints once it listens. */
function labUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`lab server did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`lab server exited (${code}): ${out}`)));
  });
}
