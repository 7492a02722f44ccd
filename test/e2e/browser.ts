/** The Chromium to use: $CHROMIUM_PATH, else Debian's, else Playwright's own download (undefined). */
export { chromiumPath } from '../../scripts/chromium.ts';

/** Flags that keep Chromium quiet and working in a sandboxed CI container. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
