/** iPhone-size screenshots, light and dark, to artifacts/screenshots/<name>-<scheme>.png (see screenshots.spec.ts). */
import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';

/** Screenshots the viewport in light and dark, after checking nothing scrolls sideways. */
export async function shootBothSchemes(page: Page, name: string): Promise<void> {
  mkdirSync('artifacts/screenshots', { recursive: true });
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `${name} scrolls sideways`).toBeLessThanOrEqual(client);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `artifacts/screenshots/${name}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
