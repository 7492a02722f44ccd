/**
 * Theme (issue 16): System, Light or Dark from the footer, remembered, and applied before first paint
 * (by an inline script in <head>: it still applies with every module script blocked).
 */
import { test, expect } from '@playwright/test';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'light' });

const DARK_BG = 'rgb(17, 19, 21)';
const LIGHT_BG = 'rgb(251, 251, 248)';

test('pick Dark on a light device: dark now, after a reload, and before any module runs', async ({ page }) => {
  await page.goto('/cards/gpu-util/');
  await expect(page.locator('body')).toHaveCSS('background-color', LIGHT_BG);
  const pick = page.getByLabel('Theme');
  await expect(pick).toHaveValue('system');
  expect((await pick.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await pick.selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('body')).toHaveCSS('background-color', DARK_BG);
  // Another page, with module scripts blocked: only the inline script in <head> can have set it.
  await page.route('**/_astro/*.js', (r) => r.abort());
  await page.goto('/topics/');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('body')).toHaveCSS('background-color', DARK_BG);
  await expect(page.locator('meta[name="theme-color"]').first()).toHaveAttribute('content', '#111315');
  await page.unroute('**/_astro/*.js');
  // Back to System: the device's light again, and nothing remembered.
  await page.goto('/topics/');
  await expect(page.getByLabel('Theme')).toHaveValue('dark');
  await page.getByLabel('Theme').selectOption('system');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  await expect(page.locator('body')).toHaveCSS('background-color', LIGHT_BG);
  expect(await page.evaluate(() => localStorage.getItem('saturate:theme'))).toBeNull();
});

test('pick Light on a dark device: light, by keyboard', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.locator('body')).toHaveCSS('background-color', DARK_BG);
  const pick = page.getByLabel('Theme');
  await pick.focus();
  await page.keyboard.press('ArrowDown'); // System → Light
  await expect(page.locator('body')).toHaveCSS('background-color', LIGHT_BG);
  await page.reload();
  await expect(page.locator('body')).toHaveCSS('background-color', LIGHT_BG);
});
