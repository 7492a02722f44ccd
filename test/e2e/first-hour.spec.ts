/**
 * The first hour of a newcomer on a phone-sized window (390×844): `npm run demo:fleet`'s fleet page with simulated
 * GPUs said to be simulated and a window that has data; a GPU's live view opened at its charts, watch-only; a lab
 * served by the lab server that connects to it by itself and says what it reads; steps that start neutral.
 * Screenshots (light and dark) of each changed screen are kept with the e2e artifacts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, type Page } from '@playwright/test';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

/** Waits for React islands to hydrate. */
const hydrated = (page: Page) => expect(page.locator('astro-island[ssr]')).toHaveCount(0, { timeout: 30_000 });

/** Screenshots in light and dark, kept with the e2e artifacts. */
async function shots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`firsthour-${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Spawns `args` with node and resolves with the first match of `re` in its output. */
function startAndRead(args: string[], re: RegExp, env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const found = new Promise<string>((resolve, reject) => {
    const on = (b: Buffer) => {
      out += b.toString();
      const m = re.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${out}`)));
  });
  return { child, found };
}

/** Stops `c` with SIGTERM and waits for it to exit. */
async function stop(c: ChildProcess | null): Promise<void> {
  if (!c || c.exitCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  await exited;
}

test.describe('demo:fleet on a phone', () => {
  let demo: ChildProcess | null = null;
  test.afterAll(async () => stop(demo));

  test('the fleet says how much data it has, picks a window with data, and labels simulated GPUs', async ({ page }) => {
    test.setTimeout(240_000);
    const startedMs = Date.now();
    const run = startAndRead(['scripts/demo-fleet.ts', '--site', 'dist'], /Open the fleet: (\S+)/);
    demo = run.child;
    const url = await run.found;
    await page.goto(url);
    const status = page.locator('[data-fleet-status]');
    // Minutes of data in a 24 h default: the page moves to the last hour and says why.
    await expect(status).toHaveText(
      /Read 12 GPUs over the last 1h\. Prometheus has (under a minute|\d+ minutes) of data/,
      {
        timeout: 60_000,
      },
    );
    await expect(page.locator('select[name="window"]')).toHaveValue('1h');
    await expect(page.locator('[data-fleet-headline]')).toContainText('12 GPUs (all simulated)');
    await expect(page.locator('.fleet-sim-tag')).toHaveCount(12);
    // Non-zero hours, as a newcomer would see them (reloading until they come).
    await expect
      .poll(
        async () => {
          const rows = await page.locator('[data-fleet-states] tr').count();
          if (rows === 0) {
            await page.reload();
            await expect(status).toHaveText(/Read 12 GPUs/, { timeout: 60_000 });
          }
          return page.locator('[data-fleet-states] tr').count();
        },
        { timeout: 120_000 },
      )
      .toBeGreaterThan(0);
    console.log(`demo:fleet: ${((Date.now() - startedMs) / 1000).toFixed(1)} s from the command to non-zero hours`);
    await page.locator('#fleet-summary-h').scrollIntoViewIfNeeded();
    await shots(page, 'fleet');
    await page.locator('.fleet-sim-tag').first().scrollIntoViewIfNeeded();
    await shots(page, 'fleet-gpus');

    // A GPU's live view opens at its charts, tagged SIMULATED, with steps to watch rather than pass.
    await page.locator('.fleet-live').first().click();
    await expect(page).toHaveURL(/\/labs\/[\w-]+\/\?gpu=[^#]+#lab-charts$/);
    await hydrated(page);
    const banner = page.locator('.lab-banner');
    await expect(banner).toContainText('SIMULATED', { timeout: 30_000 });
    await expect(banner).toContainText('simulated="true"');
    await expect(page.getByTestId('lab-watch-only')).toBeVisible();
    await expect(page.locator('.lab-step .lab-badge[data-state="fail"]')).toHaveCount(0);
    await expect(page.locator('#lab-charts')).toBeInViewport();
    await shots(page, 'fleet-live-view');
    await page.getByTestId('lab-watch-only').scrollIntoViewIfNeeded();
    await shots(page, 'fleet-watch-only');
  });
});

test.describe('a lab served by the lab server', () => {
  let server: ChildProcess | null = null;
  let config = '';
  test.afterAll(async () => {
    await stop(server);
    if (config) rmSync(config, { recursive: true, force: true });
  });

  test('connects by itself in every lab and says in one line what the server reads and why', async ({ page }) => {
    test.setTimeout(90_000);
    config = mkdtempSync(join(tmpdir(), 'firsthour-e2e-'));
    const run = startAndRead(
      ['server/bin.mjs', '--port', '0', '--source', 'auto', '--static', 'dist'],
      /(http:\/\/127\.0\.0\.1:\d+\/\?token=\w+)/,
      { ...process.env, XDG_CONFIG_HOME: config },
    );
    server = run.child;
    const printed = await run.found;
    const origin = new URL(printed).origin;
    await page.goto(printed); // the URL npm start prints: the home page, once
    // The page keeps the token, then takes it out of the address bar: the sign it is kept.
    await expect.poll(() => page.url(), 'the token leaves the address bar').toBe(`${origin}/`);
    await page.goto(`${origin}/labs/data-loader-starvation/`);
    await hydrated(page);
    const line = page.getByTestId('lab-own-server');
    await expect(line).toHaveText(
      /^You are on your lab server \(127\.0\.0\.1:\d+\)\. It (has no NVIDIA driver, so it simulates a GPU|reads this machine's NVIDIA GPU through NVML)\.$/,
    );
    // Connected with no click: the banner, not the form.
    await expect(page.locator('.lab-banner')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Connect' })).toHaveCount(0);
    await page.locator('.lab-connect').scrollIntoViewIfNeeded();
    await shots(page, 'lab-own-server');
    await page.goto(`${origin}/labs/busy-in-time/`);
    await hydrated(page);
    await expect(page.locator('.lab-banner')).toBeVisible({ timeout: 20_000 });
  });

  test('without the token, the lab server is offered before the in-page simulator', async ({ page }) => {
    await page.goto('/labs/busy-in-time/'); // the suite's own lab server, no token on this device
    await hydrated(page);
    await expect(page.getByTestId('lab-own-server')).toContainText('You are on your lab server');
    const buttons = page.locator('.lab-connect .actions button');
    await expect(buttons.first()).toHaveText('Use a lab server');
    await expect(buttons.nth(1)).toHaveText('Start the simulation');
    await page.locator('.lab-connect').scrollIntoViewIfNeeded();
    await shots(page, 'lab-own-server-no-token');
  });
});

test("a step is the learner's turn, not red, while its check fails before they act", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto('/labs/data-loader-starvation/');
  await hydrated(page);
  await page.getByRole('button', { name: 'Start the simulation' }).click();
  await page.getByLabel('Speed').selectOption('10');
  await expect(page.getByTestId('step-state-see-the-sawtooth')).toHaveText('Passed', { timeout: 30_000 });
  const step2 = page.locator('[data-step="add-workers"]');
  // Its check runs and fails (GPU-Util is still low) ...
  await expect(step2.locator('.lab-result')).toContainText('mean GPU-Util over 10 s');
  // ... but nothing is red until the learner applies the fix and a window after it still fails.
  await expect(page.getByTestId('step-state-add-workers')).toHaveText('Your turn');
  await expect(step2.locator('.lab-badge[data-state="fail"]')).toHaveCount(0);
  await step2.scrollIntoViewIfNeeded();
  await shots(page, 'lab-your-turn');
  await page.getByRole('button', { name: 'Set num_workers = 8' }).click();
  await expect(page.getByTestId('step-state-add-workers')).toHaveText('Passed', { timeout: 30_000 });
});
