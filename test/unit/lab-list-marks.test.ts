/**
 * The labs list shows a completed lab as cards show their marks: a "✓ Completed" badge in the ok colours, with
 * enough contrast in light and dark, and the word for screen readers (not a grey "· completed" after the details).
 * The page itself reads astro:content and is built, not rendered here: its source is checked for the shared markup.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { marksHtml } from '../../src/lib/card-marks.ts';
import { contrast, THEMES } from './theme-css.ts';

const globalCss = readFileSync('src/styles/global.css', 'utf8');
const labsPage = readFileSync('src/pages/labs/index.astro', 'utf8');

/** The declarations of the rule whose selector is exactly `selector`. */
const rule = (selector: string) => {
  const at = globalCss.indexOf(`${selector} {`);
  return at < 0 ? '' : globalCss.slice(at, globalCss.indexOf('}', at));
};

describe('a completed lab on the labs list', () => {
  test('is a "Completed" badge that screen readers hear once, in words', () => {
    const html = marksHtml(['completed']);
    expect(html).toContain('<span class="sr-only">Completed.</span>');
    expect(html).toContain('<span class="mark" data-mark="completed" aria-hidden="true">Completed</span>');
    expect(labsPage).toContain("set:html={marksHtml(['completed'])}");
    expect(labsPage).not.toMatch(/· completed/);
  });

  test('the badge has a ✓, the ok colours, and stays hidden until the lab is done', () => {
    expect(rule(".mark[data-mark='completed']::before")).toContain("content: '✓ '");
    expect(rule(".mark[data-mark='completed']")).toMatch(/background: var\(--ok-soft\);\s*border-color: var\(--ok\)/);
    expect(rule('.marks[hidden]')).toContain('display: none');
  });

  test('its text reads at 4.5:1 on its background and its border stands out at 3:1, light and dark', () => {
    expect(rule('.mark')).toContain('color: var(--fg)');
    for (const [name, t] of Object.entries(THEMES)) {
      expect(contrast(t['--fg']!, t['--ok-soft']!), name).toBeGreaterThanOrEqual(4.5);
      expect(contrast(t['--ok']!, t['--card']!), name).toBeGreaterThanOrEqual(3);
    }
  });
});
