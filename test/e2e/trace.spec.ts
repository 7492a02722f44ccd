/**
 * /trace/ as a learner uses it on a phone: the sample, then their own file read with no request at all,
 * bad files answered with what is wrong, the report accessible, and the page and sample offline.
 */
import { test, expect, type Page } from '@playwright/test';
import { axe } from './axe.ts';
import { join } from 'node:path';

const fixtures = join(import.meta.dirname, '../fixtures/trace');

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

const status = (page: Page) => page.locator('[data-trace-status]');

test('the sample trace opens a verdict with evidence and card links; then a file of mine is read with no request', async ({
  page,
}) => {
  await page.goto('/trace/');
  await page.getByRole('button', { name: 'Try a sample trace' }).click();
  await expect(status(page)).toHaveText(/Read 1 rank in .* s, on this device/, { timeout: 30_000 });
  const verdict = page.locator('.trace-verdict');
  await expect(verdict.getByRole('heading', { level: 2 })).toBeFocused();
  await expect(verdict).toContainText('What to change');
  await expect(verdict.getByRole('link').first()).toHaveAttribute('href', /\/cards\/[a-z-]+\/$/);
  await expect(page.getByRole('table', { name: 'Idle time per stream (HTA)' })).toBeVisible();

  const requests: string[] = [];
  page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
  await page.locator('[data-trace-input]').setInputFiles(join(fixtures, 'hta-rocm-mi250.json.gz'));
  await expect(status(page)).toHaveText(/Read 1 rank/, { timeout: 30_000 });
  await expect(page.getByRole('region', { name: /Rank –: hta-rocm-mi250\.json\.gz/ })).toContainText('ROCM');
  expect(requests).toEqual([]);

  const audit = await axe(page).include('main').analyze();
  expect(
    audit.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
  ).toEqual([]);
  const sideways = await page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  );
  expect(sideways).toBe(false);
});

test('a file that is not a trace, a CPU-only trace and a cut-short gzip each say what is wrong', async ({ page }) => {
  await page.goto('/trace/');
  const input = page.locator('[data-trace-input]');
  await input.setInputFiles({
    name: 'results.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"loss": [1, 2]}'),
  });
  await expect(status(page)).toHaveText(/results\.json: This is JSON but not a profiler trace/);
  await input.setInputFiles(join(fixtures, 'hta-cpu-only.json.gz'));
  await expect(status(page)).toHaveText(/No GPU activity in this trace/);
  const { readFileSync } = await import('node:fs');
  const gz = readFileSync(join(fixtures, 'hta-sampled-rank-0.json.gz'));
  await input.setInputFiles({ name: 'cut.json.gz', mimeType: 'application/gzip', buffer: gz.subarray(0, 50_000) });
  await expect(status(page)).toHaveText(/cut\.json\.gz: .*cut short/);
  await expect(page.locator('.trace-verdict')).toHaveCount(0);
});

test('the page and its sample trace work offline after one visit', async ({ page, context }) => {
  test.slow(); // the first visit precaches the whole site (~7 MB) on a shared machine
  await page.goto('/trace/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 120_000 });
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    if (!reg.active) throw new Error('no active worker');
  });
  await context.setOffline(true);
  await page.reload();
  await page.getByRole('button', { name: 'Try a sample trace' }).click();
  await expect(status(page)).toHaveText(/Read 1 rank/, { timeout: 30_000 });
  await expect(page.locator('.trace-verdict h2')).toBeVisible();
});

test('before a file is opened the page loads ≤ 15 KB gzip of JavaScript; the reader comes with the first file', async ({
  page,
}) => {
  const { watchScripts, inlineScriptsGzip, KB } = await import('./script-bytes.ts');
  const scripts = watchScripts(page);
  await page.goto('/trace/');
  await scripts.settled();
  const before = scripts.total() + (await inlineScriptsGzip(page));
  test.info().annotations.push({
    type: 'trace JS before a file',
    description: `${(before / KB).toFixed(1)} KB (${scripts.list()})`,
  });
  expect(before, scripts.list()).toBeLessThanOrEqual(15 * KB);
  expect(scripts.list()).not.toMatch(/trace-page|trace-worker/);
});
