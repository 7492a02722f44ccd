/**
 * iPhone-sized screenshots (390×844 CSS px at 2×, touch, light and dark) of the main screens,
 * saved to artifacts/screenshots/<name>-<scheme>.png for a person to look at. Each test also checks
 * what the picture is meant to show (the screen is there, nothing scrolls sideways), so a broken
 * page fails here rather than producing a blank screenshot.
 * Pages that do not exist in this build (e.g. /progress/ before it lands) are skipped with a note.
 */
import { test, expect, type Page } from '@playwright/test';
import { existsSync, mkdirSync } from 'node:fs';
import { answerSeries, getBank, openCardQuiz } from './progress-helpers.ts';
import { answerQuickly } from './quiz-fast.ts';
import { liveFigure } from './helpers.ts';

const DIR = 'artifacts/screenshots';
mkdirSync(DIR, { recursive: true });

// No service worker: it would precache the whole site in each fresh context, and pictures don't need it.
test.use({
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  serviceWorkers: 'block',
});

/** Scrolls so the element's top sits at `at` (0–1) of the viewport's height. */
async function scrollTo(page: Page, selector: string, at: number): Promise<void> {
  await page.evaluate(
    ([sel, f]) => {
      const el = document.querySelector(sel)!;
      window.scrollTo({ top: el.getBoundingClientRect().top + window.scrollY - innerHeight * f, behavior: 'instant' });
    },
    [selector, at] as const,
  );
}

async function noSideScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(client);
}

interface Shot {
  name: string;
  path: string;
  /** Present only when this build has the page. */
  needs?: string;
  /** Runs before the page opens (e.g. answer something so a stats page has data). */
  setup?: (page: Page) => Promise<void>;
  prepare?: (page: Page) => Promise<void>;
}

const SHOTS: Shot[] = [
  {
    name: 'home',
    path: '/',
    prepare: async (page) => {
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    },
  },
  {
    name: 'card',
    path: '/cards/gpu-util/',
    prepare: async (page) => {
      await expect(page.getByRole('heading', { level: 1, name: /GPU utilization/ })).toBeVisible();
    },
  },
  {
    name: 'quiz-answered',
    path: '/cards/gpu-util/',
    prepare: async (page) => {
      const quiz = page.locator('section.quiz');
      await quiz.scrollIntoViewIfNeeded();
      await expect(page.locator('#quiz astro-island[ssr]')).toHaveCount(0);
      await quiz.locator('[data-option]').first().click();
      await expect(quiz.locator('.feedback h3')).toBeVisible();
      await scrollTo(page, '#quiz .feedback', 0.45); // the last options, the verdict and why
    },
  },
  {
    name: 'practice',
    path: '/practice/random/?seed=screenshot',
    prepare: async (page) => {
      await expect(page.locator('section.quiz .quiz-progress')).toHaveText(/Question 1 of \d+/);
    },
  },
  {
    name: 'progress',
    path: '/progress/',
    needs: 'dist/progress/index.html',
    setup: async (page) => {
      // A learner who answered a card's quiz: the stats have something to show.
      const quiz = await openCardQuiz(page, 'gpu-util');
      await quiz.locator('[data-option]').first().click();
      await expect(quiz.locator('.feedback h3')).toBeVisible();
    },
    prepare: async (page) => {
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.locator('astro-island[ssr]:not([client="visible"])')).toHaveCount(0);
    },
  },
  {
    // Issue 16: "Continue" with the next unread card, once one is read.
    name: 'home-continue',
    path: '/',
    setup: async (page) => {
      await openCardQuiz(page, 'gpu-util');
    },
    prepare: async (page) => {
      await expect(page.locator('#continue')).toBeVisible();
      await scrollTo(page, '#continue', 0.1);
    },
  },
  {
    // Issue 16: the topics index, and marks on the list (a card read, one due three days after a mistake).
    name: 'topics-marks',
    path: '/topics/meters/',
    setup: async (page) => {
      const t0 = Date.now();
      await page.clock.setFixedTime(t0);
      const quiz = await openCardQuiz(page, 'gpu-util');
      await quiz.locator('[data-option]').first().click();
      await expect(quiz.locator('.feedback h3')).toBeVisible();
      await page.clock.setFixedTime(t0 + 3 * 86_400_000);
    },
    prepare: async (page) => {
      await expect(page.locator('a[data-card="gpu-util"] .mark').first()).toBeVisible();
    },
  },
  {
    name: 'topics-index',
    path: '/topics/',
    prepare: async (page) => {
      await expect(page.getByRole('navigation', { name: 'Topics on this page' })).toBeVisible();
    },
  },
  {
    // Issue 16: the glossary's A–Z index and filter.
    name: 'glossary-filter',
    path: '/glossary/',
    prepare: async (page) => {
      await page.getByLabel('Filter terms').fill('sm');
      await expect(page.locator('#glossary-count')).toHaveText(/of \d+ terms match/);
    },
  },
  {
    // Issue 16: the backup's import button, and the theme picker in the footer.
    name: 'progress-backup',
    path: '/progress/',
    needs: 'dist/progress/index.html',
    prepare: async (page) => {
      await expect(page.locator('label[for="import-file"]')).toBeVisible();
      await scrollTo(page, '#backup-h', 0.05);
    },
  },
  {
    // Issue 28: the review queue in the words results and home use (learning, due, new), after a mistake.
    name: 'review-counts',
    path: '/review/',
    setup: async (page) => {
      await answerSeries(await openCardQuiz(page, 'gpu-util'), await getBank(page), [false]);
    },
    prepare: async (page) => {
      await expect(page.getByTestId('review-counts')).toHaveText(/learning/);
    },
  },
  {
    // Issue 28: a search for the term a card is named after lists that card first.
    name: 'search-mfu',
    path: '/search/?q=mfu',
    prepare: async (page) => {
      await expect(page.locator('[data-search-results] a').first()).toHaveAttribute('href', '/cards/mfu/');
    },
  },
  {
    // Issue 28: a finished card quiz opens at its last score with "Practise again".
    name: 'card-quiz-last',
    path: '/cards/gpu-util/',
    setup: async (page) => {
      const bank = await getBank(page);
      const quiz = await openCardQuiz(page, 'gpu-util');
      const total = Number((await quiz.locator('.quiz-progress').innerText()).match(/of (\d+)/)![1]);
      await answerQuickly(quiz, bank, Array<boolean>(total).fill(true));
      await expect(quiz.getByTestId('score')).toBeVisible();
    },
    prepare: async (page) => {
      await page.locator('#quiz').scrollIntoViewIfNeeded(); // the quiz hydrates when it comes into view
      await expect(page.getByTestId('quiz-last')).toBeVisible();
      await scrollTo(page, '[data-testid="quiz-last"]', 0.3);
    },
  },
  {
    // Issue 28: a figure's slider keeps its filled track (dark mode too) and its caption follows the values.
    name: 'figure-slider',
    path: '/cards/power-draw-and-limits/',
    prepare: async (page) => {
      await liveFigure(page, 'figure[data-figure="power-clocks"]');
      await scrollTo(page, 'figure[data-figure="power-clocks"]', 0.05);
    },
  },
];

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} screenshots`, () => {
    test.use({ colorScheme: scheme });
    for (const shot of SHOTS) {
      test(`${shot.name} (${scheme})`, async ({ page }) => {
        test.skip(!!shot.needs && !existsSync(shot.needs), `${shot.path} is not in this build (${shot.needs} missing)`);
        // A learner who dismissed the install guide (it would cover the bottom of every shot).
        await page.addInitScript(() => localStorage.setItem('saturate:install-dismissed', '1'));
        await shot.setup?.(page);
        await page.goto(shot.path);
        await shot.prepare?.(page);
        await noSideScroll(page);
        const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        // Dark mode follows the system setting.
        expect(bg).toBe(scheme === 'dark' ? 'rgb(17, 19, 21)' : 'rgb(251, 251, 248)');
        await page.screenshot({ path: `${DIR}/${shot.name}-${scheme}.png`, animations: 'disabled' });
      });
    }
  });
}
