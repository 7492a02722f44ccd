/**
 * The fleet page as a platform engineer uses it: a lab server started with --source prometheus:<url> in front of
 * a real Prometheus holding a simulated cluster, the page opened from the URL the server printed, at phone size.
 */
import { test, expect } from '@playwright/test';
import { axe } from './axe.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCli } from '../../server/cli.ts';
import { launch, type Launched } from '../../server/launch.ts';
import { scenarioCluster, writeClusterOpenMetrics } from '../fleet/cluster.ts';
import { startPrometheus, type RunningPrometheus } from '../fleet/prometheus-harness.ts';

const TOKEN = 'fleet-e2e-token-0123456789';
let prom: RunningPrometheus;
let lab: Launched;
let dir: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(join(tmpdir(), 'saturate-fleet-e2e-'));
  const file = join(dir, 'cluster.om');
  const now = Date.now();
  // The last hour of a cluster, one host per scenario, up to a minute ago (so the live view has scrapes).
  await writeClusterOpenMetrics(file, scenarioCluster(), now - 3_600_000, now - 60_000, 15_000);
  prom = await startPrometheus({ openMetricsFile: file });
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, TOKEN);
  lab = await launch(
    parseCli([
      '--port',
      '0',
      '--source',
      `prometheus:${prom.url}`,
      '--interval',
      '15000',
      '--static',
      'dist',
      '--token-file',
      tokenFile,
    ]),
    { print: () => undefined, log: () => undefined, handleSignals: false, env: { XDG_CONFIG_HOME: dir } },
  );
});

test.afterAll(async () => {
  await lab?.stop();
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test('the fleet page reads the cluster through the lab server and names where GPUs are wasted', async ({ page }) => {
  test.setTimeout(150_000); // audits on load and reload and a lab page on a shared 2-core machine
  await page.goto(`http://127.0.0.1:${lab.port}/fleet/?token=${TOKEN}`);
  // Prometheus holds an hour: the page leaves the 24 h default for the window that data fills.
  await expect(page.locator('[data-fleet-status]')).toHaveText(/Read 64 GPUs over the last 1h\. Prometheus has/, {
    timeout: 60_000,
  });
  await expect(page).toHaveURL(/\/fleet\/$/); // the token left the address bar
  await expect(page.locator('[data-fleet-headline]')).toContainText('64 GPUs from http://127.0.0.1:');
  // The energy figure says where it came from (this Prometheus holds raw series, no recording rules).
  await expect(page.locator('[data-fleet-headline]')).toContainText(/kWh, from the GPUs’ energy counters\./);
  // The model's default price, with its source and date beside it, prices the wasteful hours; the field is editable,
  // an empty one prices nothing, and what is typed is remembered.
  const price = page.getByLabel('NVIDIA H100 80GB HBM3', { exact: true });
  await expect(price).toHaveValue('3.99');
  await expect(page.locator('.fleet-price small')).toContainText(
    'Default $3.99/GPU-hour, Lambda list price (lambda.ai/instances), read 2026-09-20',
  );
  await expect(page.locator('[data-fleet-headline]')).toContainText(/about \$\d/);
  const atDefault = await page.locator('[data-fleet-headline]').textContent();
  await price.fill('');
  await expect(page.locator('[data-fleet-headline]')).toContainText('Enter a price per GPU-hour');
  await price.fill('2.5');
  await expect(page.locator('[data-fleet-headline]')).toContainText(/about \$\d/);
  expect(await page.locator('[data-fleet-headline]').textContent()).not.toBe(atDefault);
  await page.locator('#fleet-summary-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('fleet-phone.png') }); // kept with the e2e artifacts (docs/)
  // Grouped by host, the most wasteful first: an idle host leads.
  const first = page.locator('.fleet-group').first();
  await expect(first.locator('summary .title')).toHaveText(
    /sim-(idle|data-starved|nccl-hang|small-kernels|straggler|throttled)/,
  );
  await page.getByLabel('Group by').selectOption('model');
  await expect(page.locator('.fleet-group')).toHaveCount(1);
  await expect(page.locator('.fleet-group summary .title')).toHaveText('NVIDIA H100 80GB HBM3');
  // A GPU says why, and what to do.
  await page.getByLabel('Group by').selectOption('host');
  const why = page.locator('.fleet-why').first();
  await why.locator('summary').click();
  await expect(why).toHaveJSProperty('open', true);
  await expect(why.locator('p').first()).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const audit = await axe(page).withTags(['wcag2a', 'wcag2aa']).analyze();
    expect(audit.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  }
  await page.locator('#fleet-summary-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('fleet-phone-dark.png') }); // kept with the e2e artifacts
  await page.emulateMedia({ colorScheme: 'light' });
  await page.reload();
  // The page remembers the lab server it read (the token no longer in the address bar) and the price typed.
  await expect(page.locator('[data-fleet-status]')).toHaveText(/Read 64 GPUs/, { timeout: 60_000 });
  await expect(page.getByLabel('NVIDIA H100 80GB HBM3', { exact: true })).toHaveValue('2.5');
  // A GPU opens its live view: the lab console for its verdict, connected to the same lab server, showing that GPU.
  const idle = page.locator('.fleet-group', { has: page.locator('summary .title', { hasText: /^sim-idle$/ }) });
  if (!(await idle.evaluate((d) => (d as HTMLDetailsElement).open))) await idle.locator('summary').click();
  await idle.getByRole('link', { name: 'Open live charts of sim-idle GPU 3' }).click();
  await expect(page).toHaveURL(/\/labs\/idle-gpu-cost\/\?gpu=/);
  await expect(page.getByRole('combobox', { name: 'GPU', exact: true }).locator('option:checked')).toHaveText(
    /NVIDIA H100 80GB HBM3 \(sim-idle, GPU 3\)/,
    { timeout: 30_000 },
  );
  // Its series, not the first device's (sim-compute-bound, busy): GPU-Util 0% with memory held.
  const summary = page.locator('.lab-chart-summary');
  await expect(summary.first()).toContainText(/GPU-Util: mean 0(\.0)?% \(/, { timeout: 30_000 });
  await expect(summary.nth(1)).toContainText(/mean [1-9]\d*(\.\d)? GiB/);
});

test('choosing another window while one is being read shows the window chosen last', async ({ page }) => {
  test.setTimeout(150_000); // a 7-day audit on a shared 2-core machine
  const status = page.locator('[data-fleet-status]');
  await page.goto(`http://127.0.0.1:${lab.port}/fleet/?token=${TOKEN}`);
  await expect(status).toHaveText(/Read 64 GPUs over the last 1h\./, { timeout: 60_000 });
  // The 7-day read ends one way or the other: answered (the page must not show it now) or cancelled.
  const weekEnded = new Promise<void>((resolve) => {
    const ended = (r: { url(): string }) => {
      if (r.url().includes('window=7d')) resolve();
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
  });
  const windowSelect = page.locator('select[name="window"]');
  await windowSelect.selectOption('7d');
  await windowSelect.selectOption('1h'); // changed their mind while the week is read
  await expect(status).toHaveText(/Read 64 GPUs over the last 1h\./, { timeout: 60_000 });
  await weekEnded;
  // Whatever the week's answer did, it did within a frame or two of arriving (one JSON parse and a render).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(status).toHaveText(/Read 64 GPUs over the last 1h\./);
  await expect(windowSelect).toHaveValue('1h');
});

test('a lab server without a fleet says how to start one', async ({ page }) => {
  await page.goto(`/fleet/`);
  await page
    .getByLabel('Lab server URL, with its token')
    .fill(`${new URL(page.url()).origin}/?token=e2e-token-0123456789abcdef`);
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.locator('[data-fleet-status]')).toContainText('start it with npm start -- --source prometheus:');
});
