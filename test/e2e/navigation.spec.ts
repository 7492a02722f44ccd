/**
 * Finding things (issue 16): the topics page's index, the glossary's A–Z and filter, and the desktop
 * sidebar (≥ 1024 px) that phones never get.
 */
import { test, expect } from '@playwright/test';

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('the topics page opens with an index: one link per topic section', async ({ page }) => {
    await page.goto('/topics/');
    const index = page.getByRole('navigation', { name: 'Topics on this page' });
    const links = index.getByRole('link');
    const sections = page.locator('section.topic-section');
    await expect(links).toHaveCount(await sections.count());
    expect(await sections.count()).toBeGreaterThan(3);
    const last = links.last();
    expect((await last.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    const target = (await last.getAttribute('href'))!;
    await last.click();
    await expect(page).toHaveURL(new RegExp(`${target}$`));
    await expect(page.locator(`${target} h2`)).toBeInViewport();
    await expect(page.locator('aside.sidebar')).toBeHidden(); // no sidebar on a phone
  });

  test('the glossary has an A–Z index and a filter; the filter narrows and says how many match', async ({ page }) => {
    await page.goto('/glossary/');
    const all = await page.locator('[data-term]').count();
    expect(all).toBeGreaterThan(100);
    const az = page.getByRole('navigation', { name: 'Glossary by letter' });
    await az.getByRole('link', { name: 'N', exact: true }).click();
    await expect(page.locator('#letter-N h2')).toBeInViewport();
    const filter = page.getByLabel('Filter terms');
    await filter.fill('nvlink');
    const shown = page.locator('[data-term]:visible');
    const n = await shown.count();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(all / 4); // it narrows: a few NVLink terms, not the glossary
    for (const text of await shown.allTextContents()) expect(text.toLowerCase()).toContain('nvlink');
    await expect(page.locator('#glossary-count')).toHaveText(`${n} of ${all} terms match`);
    await filter.fill('xyzzy');
    await expect(shown).toHaveCount(0);
    await expect(page.getByText('No term matches.')).toBeVisible();
    await filter.fill('');
    await expect(shown).toHaveCount(all);
  });

  test('without JavaScript the glossary is the full list and the filter is not offered', async ({ browser }) => {
    const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await ctx.newPage();
    await page.goto('/glossary/');
    await expect(page.getByLabel('Filter terms')).toBeHidden();
    expect(await page.locator('[data-term]:visible').count()).toBeGreaterThan(100);
    await ctx.close();
  });
});

test.describe('on a desktop', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('a sidebar with the topics beside a wider column; a card page lists its own sections', async ({ page }) => {
    await page.goto('/topics/');
    const side = page.locator('aside.sidebar');
    await expect(side.getByRole('navigation', { name: 'Topics' })).toBeVisible();
    await expect(side.getByRole('link', { name: 'All cards' })).toHaveAttribute('aria-current', 'page');
    const main = (await page.locator('main').boundingBox())!;
    const aside = (await side.boundingBox())!;
    expect(aside.x + aside.width).toBeLessThanOrEqual(main.x);
    expect(main.width).toBeGreaterThan(700); // the phone column was 40rem = 640 px
    await page.goto('/cards/gpu-util/');
    const outline = side.getByRole('navigation', { name: 'On this card' });
    await expect(outline.getByRole('link', { name: 'Test yourself' })).toBeVisible();
    const first = outline.getByRole('link').first();
    const href = (await first.getAttribute('href'))!;
    await first.click();
    await expect(page.locator(`h2${href}`)).toBeInViewport();
  });
});
