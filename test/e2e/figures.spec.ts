/**
 * Explorable figures (src/lib/figures/) at 390×844 with touch: each hydrates when scrolled into view without moving
 * the page, is operated by keyboard and by touch with its readout and value labels following, keeps 44 px targets,
 * passes axe in light and dark, and without JavaScript still shows its caption, chart and numbers.
 * Budget: each figure's own JavaScript (loaded once it nears the viewport: the shared hydration code, the figure's
 * module and the spec table) ≤ 8 KB gzip; the figure runtime a card loads before any figure is visible ≤ 1 KB gzip
 * (level 6, KB = 1024 bytes); a card with a figure runs ≤ 10 KB gzip of JavaScript in all (files and inline
 * scripts) before a figure or the quiz is visible (issue 15). The progress write path is not part of that: it loads
 * on the learner's first move (src/client/progress-handoff.ts), so the test touches the page before it measures
 * what the figure itself brings.
 */
import { test, expect } from '@playwright/test';
import { axe } from './axe.ts';
import { liveFigure } from './helpers.ts';
import { inlineScriptsGzip, KB, watchScripts } from './script-bytes.ts';

/** Each figure and the card it lives in. */
const FIGURE_CARDS = [
  { name: 'kernel-timeline', card: '/cards/gpu-util/' },
  { name: 'roofline', card: '/cards/memory-bound-vs-compute-bound/' },
  { name: 'data-loader', card: '/cards/data-loader-bottleneck/' },
  { name: 'cost-of-idle', card: '/cards/cost-of-idle-gpus/' },
  { name: 'mfu', card: '/cards/mfu/' },
  { name: 'kv-cache', card: '/cards/kv-cache-sizing/' },
  { name: 'launch-overhead', card: '/cards/launch-overhead-cuda-graphs/' },
  { name: 'decode-batching', card: '/cards/mbu-for-inference/' },
  { name: 'sampling', card: '/cards/sampling-periods-and-averaging/' },
  { name: 'straggler', card: '/cards/distributed-overlap-and-stragglers/' },
  { name: 'sharing', card: '/cards/mig/' },
  { name: 'energy', card: '/cards/energy-perf-per-watt-power-capping/' },
  { name: 'power-clocks', card: '/cards/power-draw-and-limits/' },
] as const;

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, serviceWorkers: 'block' });

for (const { name, card } of FIGURE_CARDS) {
  test.describe(`${name} in ${card}`, () => {
    // One load at phone size: it hydrates in view, moves by keyboard, then by touch, then is audited in both schemes.
    test('hydrates in view without shifting, moves by keyboard and by touch (44 px targets), and passes axe in light and dark', async ({
      page,
    }) => {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(card);
      const fig = page.locator(`figure[data-figure="${name}"]`);
      await expect(fig).not.toHaveAttribute('data-live', ''); // below the fold: nothing loaded yet
      const staticBox = await fig.boundingBox();
      const liveBox = await (await liveFigure(page, `figure[data-figure="${name}"]`)).boundingBox();
      expect(liveBox!.height).toBe(staticBox!.height);

      const readout = fig.locator('.fig-readout');
      // Screen readers hear the readout from the polite live region once per change, not at every tick of a drag.
      const live = fig.locator('.fig-live');
      await expect(live).toHaveAttribute('aria-live', 'polite');
      await expect(readout).not.toHaveAttribute('aria-live');
      // A choice (where the figure has one) changes the readout, from the figure's first state (a slider moved to an
      // end first can leave nothing for the choice to change: the sharing figure with no tenant busy), and back.
      const selects = fig.locator('select');
      if ((await selects.count()) > 0) {
        const first = await readout.textContent();
        const options = await selects
          .first()
          .locator('option')
          .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
        const current = await selects.first().inputValue();
        await selects.first().selectOption(options.find((v) => v !== current)!);
        await expect(readout).not.toHaveText(first!);
        // Back to the first choice: the readout returns, and the sliders below start where the page did.
        await selects.first().selectOption(current);
        await expect(readout).toHaveText(first!);
      }
      const range = fig.locator('input[type="range"]').first();
      const out = fig.locator('output').first();
      const before = await readout.textContent();
      const outBefore = await out.textContent();
      await range.focus();
      const max = await range.getAttribute('max');
      const atMax = (await range.inputValue()) === max;
      await page.keyboard.press(atMax ? 'Home' : 'End');
      await expect(readout).not.toHaveText(before!);
      await expect(live).toHaveText((await readout.textContent())!); // a key step is a change: it is announced
      await expect(out).not.toHaveText(outBefore!);
      expect(await range.getAttribute('aria-valuetext')).toBe(await out.textContent());
      // Every control is reachable with Tab and labelled.
      for (const c of await fig.locator('input, select').all()) {
        await expect(c).toBeEnabled();
        const id = await c.getAttribute('id');
        await expect(fig.locator(`label[for="${id}"]`)).toHaveCount(1);
      }

      // Touch: 44 px targets, and a tap moves the first slider.
      const ranges = fig.locator('input[type="range"]');
      for (const c of await fig.locator('input, select').all()) {
        const box = (await c.boundingBox())!;
        expect(box.height, `${await c.getAttribute('id')} is ${box.height}px tall`).toBeGreaterThanOrEqual(44);
      }
      const beforeTap = await readout.textContent();
      // Tap near each end of the first slider's track: one of the two moves it away from where it started.
      const box = (await ranges.first().boundingBox())!;
      await page.touchscreen.tap(box.x + box.width * 0.95, box.y + box.height / 2);
      if ((await readout.textContent()) === beforeTap) await page.touchscreen.tap(box.x + 4, box.y + box.height / 2);
      await expect(readout).not.toHaveText(beforeTap!);

      // axe on the live figure as the learner left it, then with the system switched to dark.
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const { violations } = await axe(page)
          .include(`figure[data-figure="${name}"]`)
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
          .analyze();
        const bad = violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        expect(bad, `${scheme}:\n${bad.join('\n')}`).toEqual([]);
      }
    });

    test('without JavaScript shows caption, chart and numbers', async ({ browser }) => {
      const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
      const page = await ctx.newPage();
      await page.goto(card);
      const fig = page.locator(`figure[data-figure="${name}"]`);
      await expect(fig.locator('figcaption')).not.toBeEmpty();
      await expect(fig.locator('svg.fig-chart > *').first()).toBeAttached();
      await expect(fig.locator('.fig-readout')).toHaveText(/\d/);
      await expect(fig.locator('output').first()).toHaveText(/\d/);
      await ctx.close();
    });

    test('reflows at 320 px with 200% text: nothing in it pokes out sideways', async ({ page }) => {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.goto(card);
      await page.addStyleTag({ content: 'html { font-size: 200% !important; }' });
      const fig = await liveFigure(page, `figure[data-figure="${name}"]`);
      const r = await fig.evaluate((el) => ({
        right: Math.max(...[el, ...el.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right)),
        vw: document.documentElement.clientWidth,
      }));
      expect(r.right).toBeLessThanOrEqual(r.vw);
    });
  });
}

/** Every figure's card, and the card that places two figures (measured at its first). */
const BUDGET_CARDS = [
  ...FIGURE_CARDS,
  { name: 'power-clocks', card: '/cards/clocks-and-clock-event-reasons/' },
] as const;

for (const { name, card } of BUDGET_CARDS) {
  test(`budget, ${name} in ${card}: its own JavaScript ≤ 8 KB gzip; before any figure is visible ≤ 1 KB of figure runtime, ≤ 10 KB in all`, async ({
    browser,
  }) => {
    // A fresh context per card, so nothing comes from the cache or another card's module map.
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' });
    const page = await ctx.newPage();
    const { sizes, total, settled } = watchScripts(page);
    // Every figure sits below the fold at 390×844: on load nothing of it may come in.
    await page.goto(card);
    await settled();
    await expect(page.locator(`figure[data-figure="${name}"]`)).not.toHaveAttribute('data-live', '');
    const runtime = [...sizes].filter(([u]) => /FigureScript/.test(u)).reduce((a, [, n]) => a + n, 0);
    expect(runtime, `${card}: figure runtime`).toBeGreaterThan(0);
    expect(runtime, `${card}: figure runtime`).toBeLessThanOrEqual(1 * KB);
    // Everything the page ran before a figure or the quiz is visible: script files plus inline scripts.
    const pageJs = total() + (await inlineScriptsGzip(page));
    expect(pageJs, `${card}: JavaScript before a figure or the quiz is visible`).toBeLessThanOrEqual(10 * KB);
    const writePath = () => [...sizes.keys()].some((u) => /progress-writer/.test(u));
    expect(writePath(), 'the progress write path waits for the learner').toBe(false);
    // The learner's first touch loads the progress write path (not the figure's): counted before the figure's own.
    await page.dispatchEvent('main', 'pointerdown');
    await settled();
    expect(writePath(), 'the first touch loads the progress write path').toBe(true);
    const before = new Set(sizes.keys());
    await liveFigure(page, `figure[data-figure="${name}"]`);
    await settled();
    // Its own: what came in for it, less another figure's module when the card places a second figure that
    // hydrates beside it (that one is measured on its own card).
    const otherFigure = (u: string) =>
      FIGURE_CARDS.some((f) => f.name !== name && new URL(u).pathname.startsWith(`/_astro/${f.name}.`));
    const own = [...sizes].filter(([u]) => !before.has(u) && !otherFigure(u));
    const ownBytes = own.reduce((a, [, n]) => a + n, 0);
    const files = own.map(([u, n]) => `${new URL(u).pathname.replace('/_astro/', '')} ${n}`).join(', ');
    test.info().annotations.push({
      type: 'figure JS gzip',
      description: `${name}: ${(ownBytes / KB).toFixed(2)} KB (${files}); runtime before: ${runtime} B; page before: ${(pageJs / KB).toFixed(1)} KB`,
    });
    expect(ownBytes, `${name} figure JS: ${files}`).toBeGreaterThan(0);
    for (const [u, n] of own) expect(n, `${u} measured`).toBeGreaterThan(0);
    expect(ownBytes, `${name} figure JS: ${files}`).toBeLessThanOrEqual(8 * KB);
    await ctx.close();
  });
}
