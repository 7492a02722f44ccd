/**
 * At 390×844 with touch: the sharing figure's modes (time-slicing, MPS, MIG) change what its meters read; a card with
 * two figures (content/cards/meters/clocks-and-clock-event-reasons.md) hydrates and moves each on its own; and every
 * static diagram (src/lib/diagrams/) is in its card, inline, named for screen readers, inside a 320 px screen, and
 * clean under axe in light and dark. Every figure's own keyboard, touch, no-JS and axe checks are in
 * test/e2e/figures.spec.ts.
 */
import { test, expect } from '@playwright/test';
import { axe } from './axe.ts';
import { liveFigure } from './helpers.ts';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, serviceWorkers: 'block' });

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

test('sharing on the MPS card: switching to time-slicing and MIG changes what the meters read', async ({ page }) => {
  await page.goto('/cards/mps/');
  const fig = await liveFigure(page, 'figure[data-figure="sharing"]');
  const readout = fig.locator('.fig-readout');
  await expect(readout).toContainText('SM activity reads 88% at 100% GPU-Util');
  const mode = fig.locator('select[data-control="mode"]');
  await mode.selectOption('time-slicing');
  await expect(readout).toContainText('GPU-Util reads 100% and SM activity 22%');
  await expect(fig.locator('svg.fig-chart')).toContainText('each tenant: 1/4 of the time');
  await mode.selectOption('mig');
  await expect(readout).toContainText('nvidia-smi shows no GPU-Util in MIG mode');
  await expect(fig.locator('svg.fig-chart')).toContainText('GPU-Util: not supported in MIG mode');
  // Fewer tenants by keyboard: MIG gives the remaining ones bigger instances.
  const tenants = fig.locator('input[data-control="tenants"]');
  await tenants.focus();
  await page.keyboard.press('Home');
  await expect(readout).toHaveText('No tenant is busy: every meter reads 0%.');
  await page.keyboard.press('ArrowRight');
  await expect(readout).toContainText('1 busy 7g.40gb instance');
});

test('a card with two figures hydrates each as it nears view, and each moves on its own', async ({ page }) => {
  await page.goto('/cards/clocks-and-clock-event-reasons/');
  const clocks = page.locator('figure[data-figure="power-clocks"]');
  const straggler = page.locator('figure[data-figure="straggler"]');
  await expect(clocks).not.toHaveAttribute('data-live', '');
  await expect(straggler).not.toHaveAttribute('data-live', '');
  await liveFigure(page, 'figure[data-figure="power-clocks"]');
  await expect(clocks.locator('.fig-readout')).toContainText('(hw_thermal_slowdown)');
  const before = await straggler.locator('.fig-readout').textContent();
  const temp = clocks.locator('input[data-control="temperatureC"]');
  const box = (await temp.boundingBox())!;
  await page.touchscreen.tap(box.x + 6, box.y + box.height / 2); // cool it: near 30 °C
  await expect(clocks.locator('.fig-readout')).not.toContainText('hw_thermal_slowdown');
  await expect(clocks.locator('output[for$="-temperatureC"]')).toHaveText(/^3\d °C$/);
  await liveFigure(page, 'figure[data-figure="straggler"]');
  await expect(straggler.locator('.fig-readout')).toHaveText(before!); // untouched by the other figure
  const ids = await page.locator('figure[data-figure] [id]').evaluateAll((els) => els.map((e) => e.id));
  expect(new Set(ids).size).toBe(ids.length); // no id clash between the two figures
});

const DIAGRAM_CARDS = [
  { name: 'gpu-anatomy', card: '/cards/dcgm-profiling-metrics/' },
  { name: 'tool-counters', card: '/cards/nvml/' },
  { name: 'launch-queue', card: '/cards/host-device-syncs/' },
  { name: 'training-step', card: '/cards/nsight-systems/' },
  { name: 'serving-path', card: '/cards/llm-serving-metrics/' },
  { name: 'multi-node', card: '/cards/infiniband-roce-gpudirect-rdma/' },
] as const;

for (const { name, card } of DIAGRAM_CARDS) {
  test(`diagram ${name} is inline in ${card}, named, fits 320 px, and passes axe in light and in dark`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(card);
    const fig = page.locator(`figure[data-diagram="${name}"]`);
    const svg = fig.locator('svg[role="img"]');
    await expect(svg).toHaveAccessibleName(/\w{3,}/);
    await expect(svg).toHaveAccessibleDescription(/.{100,}/);
    await expect(fig.locator('figcaption')).not.toBeEmpty();
    const box = await svg.evaluate((el) => ({
      w: el.getBoundingClientRect().width,
      right: el.getBoundingClientRect().right,
      vw: document.documentElement.clientWidth,
    }));
    expect(box.right).toBeLessThanOrEqual(box.vw);
    expect(box.w).toBeGreaterThan(250);
    // The same page in both schemes: text is drawn in the page's foreground colour, which flips with it.
    for (const [scheme, fg] of [
      ['light', 'rgb(27, 29, 33)'],
      ['dark', 'rgb(232, 233, 235)'],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await svg.evaluate((el) => getComputedStyle(el.querySelector('text.dg-bold')!).fill)).toBe(fg);
      const { violations } = await axe(page).include(`figure[data-diagram="${name}"]`).withTags(AXE_TAGS).analyze();
      const bad = violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(bad, `${scheme}: ${bad.join('\n')}`).toEqual([]);
    }
    // Inline: no SVG file fetched but the site's icon.
    expect(requests.filter((u) => /\.svg(\?|$)/.test(u) && new URL(u).pathname !== '/icon.svg')).toEqual([]);
  });
}
