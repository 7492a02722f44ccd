/**
 * Safari's engine for tests: WebKitGTK's MiniBrowser driven by WebKitWebDriver (Debian package
 * `webkit2gtk-driver`), under a virtual X display (`xvfb-run`, package `xvfb`). `.ci/run` installs both.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before } from 'node:test';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { startSite, type SiteServer } from '../e2e/site-server.ts';

export const MINIBROWSER = process.env['WEBKIT_MINIBROWSER'] ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const hasCommand = (cmd: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Why the WebKit tests cannot run here, or null when they can. */
export function webkitMissing(): string | null {
  const missing = [
    hasCommand('WebKitWebDriver') ? null : 'WebKitWebDriver (apt-get install webkit2gtk-driver)',
    hasCommand('xvfb-run') ? null : 'xvfb-run (apt-get install xvfb)',
    existsSync(MINIBROWSER) ? null : `MiniBrowser at ${MINIBROWSER} (set WEBKIT_MINIBROWSER)`,
  ].filter((m): m is string => m !== null);
  return missing.length ? `missing ${missing.join(', ')}` : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface WebKitSession {
  driver: WebDriver;
  /** Ends the browser session and the driver process. */
  quit: () => Promise<void>;
  /** Ends this browser session and opens a new one in its place (`driver` is the new one's). */
  restart: () => Promise<void>;
}

/**
 * Starts WebKitWebDriver on a free port and opens a MiniBrowser session (needs $DISPLAY: run under xvfb-run).
 * `acceptInsecureCerts` lets it open the HTTPS tests' self-signed host (WebDriver's standard capability).
 */
export async function startWebKit(options: { acceptInsecureCerts?: boolean } = {}): Promise<WebKitSession> {
  const port = await freePort();
  const proc: ChildProcess = spawn('WebKitWebDriver', [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const server = `http://127.0.0.1:${port}`;
  // Wait until the driver answers /status.
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const r = await fetch(`${server}/status`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`WebKitWebDriver did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const caps = {
    browserName: 'MiniBrowser',
    ...(options.acceptInsecureCerts ? { acceptInsecureCerts: true } : {}),
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
  };
  let driver: WebDriver;
  try {
    driver = await new Builder().usingServer(server).withCapabilities(caps).build();
  } catch (err) {
    proc.kill();
    throw err;
  }
  await driver.manage().setTimeouts({ script: 30_000, pageLoad: 30_000 });
  const quit = async () => {
    try {
      await driver.quit();
    } finally {
      proc.kill();
    }
  };
  const session: WebKitSession = {
    driver,
    quit,
    restart: async () => {
      await quit().catch(() => undefined); // a browser that is gone already is fine
      const next = await startWebKit(options);
      [session.driver, session.quit, session.restart] = [next.driver, next.quit, next.restart];
    },
  };
  return session;
}

/** Polls `fn` in the page until it returns a truthy value; fails with `what` after `timeoutMs`. */
export async function waitInPage<T>(driver: WebDriver, what: string, fn: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      last = await driver.executeScript(fn);
      if (last) return last as T;
    } catch (err) {
      last = err; // mid-navigation
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Scrolls the card's quiz into view (client:visible) and waits until React has hydrated it. */
export async function hydrateQuiz(driver: WebDriver): Promise<void> {
  await driver.executeScript(`document.querySelector('#quiz').scrollIntoView({ block: 'center' })`);
  await waitInPage(
    driver,
    'the quiz to hydrate',
    `return document.querySelector('#quiz astro-island') && !document.querySelector('#quiz astro-island[ssr]') && !!document.querySelector('#quiz [data-option]')`,
  );
}

/** The worker's state as the page sees it: whether it controls the page, its registration, and the precache so far. */
const WORKER_STATE = `const done = arguments[arguments.length - 1];
  (async () => {
    const r = await navigator.serviceWorker.getRegistration();
    let cached = 0;
    for (const k of await caches.keys()) cached += (await (await caches.open(k)).keys()).length;
    return JSON.stringify({
      controlled: !!navigator.serviceWorker.controller,
      installing: r?.installing?.state ?? null,
      waiting: r?.waiting?.state ?? null,
      active: r?.active?.state ?? null,
      cached,
    });
  })().then(done, (e) => done(JSON.stringify({ error: String(e) })));`;

/** The worker's install showed no progress for the whole limit; `state` is where it stopped. */
export class StalledInstall extends Error {
  readonly state: string;
  constructor(stallMs: number, state: string) {
    super(`the service worker made no progress for ${stallMs / 1000} s; last state: ${state}`);
    this.state = state;
  }
}

/**
 * Waits until the service worker controls the page with an activated worker (its precache complete), as a learner
 * waits for "ready to work offline". The limit counts from the last sign of progress (a state change or one more
 * precached file), so a slow machine that is still downloading is not failed, while a stuck install is, with the
 * state it was stuck in (StalledInstall).
 */
export async function waitForWorker(driver: WebDriver, stallMs = 30_000): Promise<void> {
  let last = '';
  let progressAt = Date.now();
  for (;;) {
    let state: string;
    try {
      state = await driver.executeAsyncScript<string>(WORKER_STATE);
    } catch (err) {
      state = JSON.stringify({ error: String(err) }); // mid-navigation
    }
    const s = JSON.parse(state) as { controlled?: boolean; active?: string | null };
    if (s.controlled && s.active === 'activated') return;
    if (state !== last) [last, progressAt] = [state, Date.now()];
    if (Date.now() - progressAt > stallMs) throw new StalledInstall(stallMs, last);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Opens `url` and waits for its worker (waitForWorker). An install that stalls gets what a learner would do, closing
 * the browser and opening the page again, once, said on stderr; a second stall fails. WebKitGTK has left a first
 * install at "installing" with nothing cached for two minutes, reloads included, in 2 of about a dozen runs of this
 * suite on a 2-core machine (once in CI, once in a clean clone under full CPU load), while 9 of 10 runs here and the
 * same worker in Chromium installed in seconds: an engine's stall we could not explain, not a slow download (that
 * shows progress and is waited for).
 */
export async function openWithWorker(wk: WebKitSession, url: string): Promise<void> {
  await wk.driver.get(url);
  try {
    await waitForWorker(wk.driver);
  } catch (err) {
    if (!(err instanceof StalledInstall)) throw err;
    console.error(`WebKit: ${err.message}; a new browser session, once`);
    await wk.restart();
    await wk.driver.get(url);
    await waitForWorker(wk.driver);
  }
}

/**
 * Reloads the page and waits for a fresh document in which `selector` exists: the old document is marked first,
 * so a reload that never happened cannot pass for one.
 */
export async function reloadUntil(driver: WebDriver, what: string, selector: string): Promise<void> {
  await driver.executeScript('window.__beforeReload = true');
  await driver.navigate().refresh();
  await waitInPage(
    driver,
    what,
    `return !window.__beforeReload && document.readyState === 'complete' && !!document.querySelector(${JSON.stringify(selector)})`,
  );
}

/**
 * For a `describe` block: a private copy of dist/ served (test/e2e/site-server.ts) and a WebKit session, both
 * started before its tests (handed to `use`) and stopped after them.
 */
export function withSiteAndWebKit(use: (site: SiteServer, wk: WebKitSession) => void): void {
  let site: SiteServer | undefined;
  let wk: WebKitSession | undefined;
  before(async () => {
    site = await startSite();
    wk = await startWebKit();
    use(site, wk);
  });
  after(async () => {
    await wk?.quit();
    await site?.dispose();
  });
}
