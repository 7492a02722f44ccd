/**
 * axe-core for the end-to-end tests: `axe(page)` is an AxeBuilder that runs axe in the page itself and reports only
 * violations. @axe-core/playwright's default opens a blank page for every analysis, injects axe-core (550 KB) into it
 * and the page again, and details every passing node: the glossary's full audit took 13–19 s that way and 2.8–4.5 s
 * this way, with the same violations (the site has no frames, the one thing the default mode adds).
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export const axe = (page: Page): AxeBuilder =>
  new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] });
