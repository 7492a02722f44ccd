/**
 * Accessibility: axe-core on every page type in light and dark (no serious or critical violations),
 * reflow at 320 px with 200% text, no layout shift when the quiz hydrates, and a keyboard-only walk
 * from the home page to an answered card quiz.
 * Page types that are not in this build yet (saved, review, progress, labs) are skipped with a note.
 */
import { test, expect, type Page } from '@playwright/test';
import { axe } from './axe.ts';
import { existsSync, readdirSync } from 'node:fs';
import { answerByKeyboard, tabInto } from './helpers.ts';

interface PageType {
  name: string;
  path: string;
  /** The built file this page needs; skipped when it is missing. */
  needs?: string;
  /** Brings the page into the state to audit (hydrated, answered, with results). */
  ready?: (page: Page) => Promise<void>;
}

/** The first subfolder of dist/<dir>/ with an index.html other than `except`, as a URL path. */
function firstPage(dir: string, except: string[] = []): string | undefined {
  const root = `dist/${dir}`;
  if (!existsSync(root)) return undefined;
  const sub = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !except.includes(d.name) && existsSync(`${root}/${d.name}/index.html`))
    .map((d) => d.name)
    .sort()[0];
  return sub ? `/${dir}/${sub}/` : undefined;
}

const answerFirst = async (page: Page) => {
  const quiz = page.locator('section.quiz');
  // Practice quizzes render again once their bank arrives: wait for that before touching the quiz.
  await expect(page.locator('astro-island[ssr]:not([client="visible"])')).toHaveCount(0);
  await page
    .locator('#quiz, section.quiz')
    .first()
    .evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 1 of \d+/);
  await quiz.locator('[data-option], input[inputmode="decimal"]').first().click();
  if ((await quiz.locator('input[inputmode="decimal"]').count()) > 0) {
    await quiz.locator('input[inputmode="decimal"]').fill('1');
    await page.keyboard.press('Enter');
  } else if ((await quiz.locator('input[type="checkbox"]').count()) > 0) {
    await quiz.getByRole('button', { name: /check/i }).click();
  }
  await expect(quiz.locator('.feedback h3')).toBeVisible();
};

const curated = firstPage('practice', ['random']);
const lab = firstPage('labs');
const PAGES: PageType[] = [
  { name: 'home', path: '/' },
  { name: 'topics', path: '/topics/' },
  { name: 'topic', path: '/topics/meters/' },
  { name: 'card', path: '/cards/gpu-util/' },
  { name: 'card, quiz answered', path: '/cards/gpu-util/', ready: answerFirst },
  { name: 'practice hub', path: '/practice/' },
  { name: 'random practice, answered', path: '/practice/random/?seed=a11y', ready: answerFirst },
  ...(curated ? [{ name: 'curated quiz', path: curated, ready: answerFirst }] : []),
  { name: 'glossary', path: '/glossary/' },
  { name: 'roles', path: '/roles/', needs: 'dist/roles/index.html' },
  {
    name: 'role quiz, answered',
    path: '/roles/ml-engineer/quiz/',
    needs: 'dist/roles/ml-engineer/quiz/index.html',
    ready: answerFirst,
  },
  {
    name: 'search, with results',
    path: '/search/',
    ready: async (page) => {
      await page.getByRole('searchbox').fill('kernel');
      await expect(page.locator('[data-search-results] li').first()).toBeVisible();
    },
  },
  { name: 'about', path: '/about/' },
  { name: 'offline', path: '/offline/' },
  { name: '404', path: '/does-not-exist/' },
  { name: 'saved', path: '/saved/', needs: 'dist/saved/index.html' },
  { name: 'review', path: '/review/', needs: 'dist/review/index.html' },
  { name: 'progress', path: '/progress/', needs: 'dist/progress/index.html' },
  { name: 'labs', path: '/labs/', needs: 'dist/labs/index.html' },
  ...(lab ? [{ name: 'lab', path: lab }] : []),
];

// The service worker would precache the whole site in every fresh context: not what these tests are about.
test.use({ serviceWorkers: 'block' });

/** Waits until every island that hydrates on load (or idle) has hydrated; client:visible ones wait for scrolling. */
async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await expect(page.locator('astro-island[ssr]:not([client="visible"])')).toHaveCount(0);
}

/** Serious or critical axe violations on the page as it is now, each with where and why. */
async function violations(page: Page, rules?: string[]): Promise<string[]> {
  const audit = axe(page).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']);
  const { violations } = await (rules ? audit.withRules(rules) : audit).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1).join(' ')}`).join('\n')}`,
    );
}

/** What dark mode changes: colours (the dark theme swaps the page's colour variables, nothing else). */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

test.describe('axe, light and dark', () => {
  for (const p of PAGES) {
    test(`${p.name} (${p.path}) has no serious or critical violations`, async ({ page }) => {
      test.skip(!!p.needs && !existsSync(p.needs), `${p.path} is not in this build (${p.needs} missing)`);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.addInitScript(() => localStorage.setItem('saturate:install-dismissed', '1'));
      await page.goto(p.path);
      await hydrated(page);
      await p.ready?.(page);
      expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(false);
      const light = await violations(page);
      expect(light, light.join('\n')).toEqual([]);
      // The same page and state in dark mode: every colour rule again (one load, not two).
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
      const dark = await violations(page, COLOUR_RULES);
      expect(dark, dark.join('\n')).toEqual([]);
    });
  }
});

test.describe('reflow: 320 px wide with 200% text', () => {
  test.use({ viewport: { width: 320, height: 640 } });
  const zoom = async (page: Page) => {
    // Text zoom as Safari's and Chrome's settings do it: the root font size doubles, rem layouts follow.
    await page.addStyleTag({ content: 'html { font-size: 200% !important; }' });
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('32px');
  };
  const noSideScroll = async (page: Page, where: string) => {
    const r = await page.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      // The widest thing that pokes out, to make the failure say what to fix.
      const out = [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((el) => el.getBoundingClientRect().right > vw + 1 && !el.closest('pre, table, .sr-only'))
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} → ${Math.round(el.getBoundingClientRect().right)}px`,
        )
        .slice(0, 5);
      return { scroll: document.documentElement.scrollWidth, client: vw, out };
    });
    expect(r.scroll, `${where}: sideways scroll; wide: ${r.out.join(', ')}`).toBeLessThanOrEqual(r.client);
  };

  test('a card page, top to quiz, needs no sideways scrolling', async ({ page }) => {
    await page.goto('/cards/gpu-util/');
    await zoom(page);
    await noSideScroll(page, 'card');
    await answerFirst(page);
    await noSideScroll(page, 'card quiz, answered');
  });

  test('the practice quiz needs no sideways scrolling, before and after answering', async ({ page }) => {
    await page.goto('/practice/random/?seed=reflow');
    await zoom(page);
    await expect(page.locator('section.quiz .quiz-progress')).toHaveText(/Question 1 of/);
    await noSideScroll(page, 'practice quiz');
    await answerFirst(page);
    await noSideScroll(page, 'practice quiz, answered');
  });
});

type Shift = { value: number; sources: string[] };

/** Records every layout shift not caused by input, from the first paint on. */
async function watchShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __shifts: Shift[] };
    w.__shifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources?: { node?: Node }[];
      })[]) {
        if (!e.hadRecentInput)
          w.__shifts.push({
            value: e.value,
            sources: (e.sources ?? []).map((s) => {
              const el = s.node instanceof Element ? s.node : (s.node?.parentElement ?? null);
              return `${el?.closest('.site-nav') ? 'tab bar: ' : ''}${el?.outerHTML.slice(0, 80) ?? '?'}`;
            }),
          });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** The shifts so far, after two frames (a shift is reported in the frame after it happens). */
async function shiftsOf(page: Page): Promise<{ cls: number; shifts: Shift[] }> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const shifts = await page.evaluate(() => (window as unknown as { __shifts: Shift[] }).__shifts);
  return { cls: shifts.reduce((s, e) => s + e.value, 0), shifts };
}

test('the card quiz hydrates without a layout shift', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await watchShifts(page);
  await page.goto('/cards/gpu-util/');
  await hydrated(page);
  const before = await page.locator('#quiz').boundingBox();
  await page.locator('section.quiz').scrollIntoViewIfNeeded();
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(0);
  await expect(page.locator('#quiz [data-option]').first()).toBeVisible();
  const { cls, shifts } = await shiftsOf(page);
  // Nothing the learner reads moves. (A run once saw the fixed tab bar's icon move a fraction of a pixel, a
  // shift of 0.000017, in one whole-suite run: below anything a reader sees, so the bound is a thousandth, where
  // Chrome's own "good" is under 0.1.)
  const outsideTabBar = shifts.filter((s) => s.sources.some((src) => !src.startsWith('tab bar: ')));
  expect(outsideTabBar, JSON.stringify(shifts)).toEqual([]);
  expect(cls, JSON.stringify(shifts)).toBeLessThan(0.001);
  // The server-rendered quiz has the hydrated one's height.
  const after = await page.locator('#quiz').boundingBox();
  expect(after!.height).toBeCloseTo(before!.height, 0);
});

for (const [width, height] of [
  [390, 844],
  [1350, 940],
] as const) {
  test(`${width}×${height}: the progress page and a practice quiz load their data without moving what is on screen`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height });
    await watchShifts(page);
    await page.goto('/progress/');
    await expect(page.getByTestId('dashboard')).toBeVisible();
    const progress = await shiftsOf(page);
    expect(progress.cls, `/progress/: ${JSON.stringify(progress.shifts)}`).toBeLessThan(0.01);
    await page.goto('/practice/random/?seed=cls');
    await expect(page.locator('section.quiz .quiz-progress')).toHaveText(/Question 1 of/);
    const practice = await shiftsOf(page);
    expect(practice.cls, `practice quiz: ${JSON.stringify(practice.shifts)}`).toBeLessThan(0.01);
  });
}

test('keyboard only: home → a card → its quiz answered by keys', async ({ page }) => {
  await page.goto('/');
  // Skip link first.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  // Tab to the first card in "Read next" and open it with Enter.
  const firstCard = page.locator('main .card-list a').first();
  const href = await firstCard.getAttribute('href');
  for (let i = 0; i < 30 && !(await firstCard.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(firstCard).toBeFocused();
  await Promise.all([page.waitForURL(`**${href}`), page.keyboard.press('Enter')]);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  // Tab through the card into the quiz (focus scrolls it into view, which hydrates it).
  const quiz = page.locator('section.quiz');
  await tabInto(page, quiz, 120);
  await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(0);
  await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 1 of \d+/);
  // Focus must be visible where it is.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe('none');
  await answerByKeyboard(page, quiz);
  await page.keyboard.press('Enter');
  await expect(quiz.locator('.quiz-progress')).toHaveText(/Question 2 of \d+/);
  await expect(quiz.locator('.prompt')).toBeFocused();
});
