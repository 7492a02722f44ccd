/**
 * Small things a learner on a 390×844 phone saw wrong (issue 16, bug 6): the heatmap's dot sizes, the
 * "Reviews due" list, the backup file control, a lab chart's unit, wide code blocks, the install guide.
 */
import { test, expect, type Page } from '@playwright/test';
import { answerSeries, getBank, openCardQuiz, openProgress } from './progress-helpers.ts';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

const box = async (page: Page, selector: string) => {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} has no box`);
  return b;
};

test('progress page: a light day is drawn bigger than an empty one; only days with reviews are listed', async ({
  page,
}) => {
  let dash = await openProgress(page);
  await expect(dash.getByTestId('due-none')).toBeVisible();
  await expect(dash.getByTestId('due-days')).toHaveCount(0);
  const bank = await getBank(page);
  const quiz = await openCardQuiz(page, 'gpu-util');
  await answerSeries(quiz, bank, [false]);
  dash = await openProgress(page);
  const empty = await box(page, '[data-testid="heatmap"] td[data-level="0"] span');
  const light = await box(page, '[data-testid="heatmap"] td[data-level="1"] span');
  expect(light.width).toBeGreaterThan(empty.width);
  const rows = dash.getByTestId('due-days').locator('tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.locator('td')).toHaveText('1');
});

test('backup import is a button-like label, 44 px, reached with Tab; the native control is not shown', async ({
  page,
}) => {
  const dash = await openProgress(page);
  const label = dash.locator('label[for="import-file"]');
  expect((await label.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await expect(label).toHaveCSS('border-top-style', 'solid');
  const input = page.locator('#import-file');
  expect((await input.boundingBox())!.width).toBeLessThanOrEqual(1);
  await dash.getByRole('button', { name: 'Export backup' }).focus();
  await page.keyboard.press('Tab');
  await expect(input).toBeFocused();
  await expect(label).toHaveCSS('outline-style', 'solid');
});

test('a lab chart says its unit: the throughput axis is in samples/s', async ({ page }) => {
  await page.goto('/labs/data-loader-starvation/');
  const charts = page.locator('.lab-chart');
  await expect(charts.filter({ hasText: 'Throughput' }).getByTestId('chart-unit')).toHaveText('samples/s');
  await expect(charts.filter({ hasText: 'GPU-Util vs' }).getByTestId('chart-unit')).toHaveText('%');
});

test('a wide code block shows it scrolls, is named, and scrolls from the keyboard', async ({ page }) => {
  await page.goto('/cards/nvidia-smi-query-dmon-pmon/');
  const wide = page.locator('pre').filter({ has: page.locator('code') });
  const index = await wide.evaluateAll((els) => els.findIndex((e) => e.scrollWidth > e.clientWidth + 20));
  expect(index).toBeGreaterThanOrEqual(0);
  const pre = wide.nth(index);
  await expect(pre).toHaveAccessibleName(/scroll sideways/);
  await expect(pre).toHaveCSS('background-image', /gradient.*gradient.*gradient.*gradient/);
  await pre.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => pre.evaluate((e) => e.scrollLeft)).toBeGreaterThan(0);
});

test('the install guide does not cover the week strip on the home page', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => {
    const e = Object.assign(new Event('beforeinstallprompt'), { prompt: async () => undefined });
    dispatchEvent(e);
  });
  const guide = page.locator('[data-install]');
  await expect(guide).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/home-install.png' });
  const strip = page.locator('[data-week-days]');
  await strip.scrollIntoViewIfNeeded();
  const [g, s] = [(await guide.boundingBox())!, (await strip.boundingBox())!];
  const overlap = g.y < s.y + s.height && s.y < g.y + g.height;
  expect(overlap).toBe(false);
});
