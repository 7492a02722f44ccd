import { existsSync } from 'node:fs';
import { chromiumPath } from '../../scripts/chromium.ts';

/** The Chromium to use: $CHROMIUM_PATH, else Debian's, else Playwright's own download (undefined). */
export { chromiumPath };

/** Debian's package `chromium-headless-shell`: Chromium's engine without the desktop browser around it. */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/**
 * The Chromium the end-to-end tests drive: $CHROMIUM_PATH when set, else the headless shell (what Playwright itself
 * runs headless tests in), else the full browser. Same Blink and V8, about twice as fast per test on a 2-core
 * machine (the figures of one card, 6 tests, one worker: 20.3 s of tests in chromium, 11.9 s in the headless shell).
 * Tests of the desktop browser itself (Chrome's install prompt) use chromiumPath().
 */
export function testChromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (env['CHROMIUM_PATH'] || env['CHROME_PATH']) return chromiumPath(env);
  return existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : chromiumPath(env);
}

/** Flags that keep Chromium quiet and working in a sandboxed CI container. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
