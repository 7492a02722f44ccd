import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, testChromiumPath } from './test/e2e/browser.ts';
import { E2E_PORT } from './test/e2e/ports.ts';

/**
 * End-to-end tests over the built site (run `npm run build` first; `npm test` does).
 * Browser: $CHROMIUM_PATH, else Debian's headless shell, else Debian's /usr/bin/chromium, else Playwright's own
 * download (test/e2e/browser.ts).
 */

const PORT = E2E_PORT;
/** API token of the lab server the tests start (tests that call the API read it from here). */
export const E2E_TOKEN = 'e2e-token-0123456789abcdef';
const executablePath = testChromiumPath();

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  forbidOnly: !!process.env['CI'],
  retries: 0,
  workers: process.env['CI'] ? 2 : '50%',
  timeout: 60_000,
  // An assertion waits up to 15 s for what the learner waits for (a hydrated island, a stored answer): on a 2-core
  // machine with both cores busy, React's first hydration alone has taken over 5 s (Playwright's default).
  expect: { timeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  outputDir: 'test-results/e2e',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // A trace records a DOM snapshot at every action (one card's figure tests: 27.2 s with, 25.5 s without), and CI
    // keeps only what a run prints. Locally a failure keeps its trace.
    trace: process.env['CI'] ? 'off' : 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          ...(executablePath ? { executablePath } : {}),
          args: CHROMIUM_ARGS,
        },
      },
    },
  ],
  webServer: {
    // The lab server serves the built site (as `npm start` does), on a simulated GPU.
    command: `node server/bin.mjs --port ${PORT} --source sim:idle --static dist --token ${E2E_TOKEN}`,
    url: `http://127.0.0.1:${PORT}/`,
    // A server already on the port is reused only when asked ($E2E_REUSE=1): by default it could be serving
    // another checkout's dist/.
    reuseExistingServer: process.env['E2E_REUSE'] === '1',
    timeout: 60_000,
  },
});
