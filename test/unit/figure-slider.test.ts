/**
 * The figures' sliders show their filled part in light and dark: the page draws the track itself up to `--fill`
 * (the browser's own accent-color fill went missing in dark mode on iOS), in colours that stand apart in both themes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { figureHtml } from '../../src/lib/figures/html.ts';
import { FIGURES, resolveFigure } from '../../src/lib/figures/registry.ts';
import { controlValues } from './figure-settings.ts';
import { contrast, THEMES } from './theme-css.ts';

const figuresCss = readFileSync('src/styles/figures.css', 'utf8');
describe('figure sliders', () => {
  test('each slider carries how far along it is (--fill), from its own min, max and value, at every value', () => {
    for (const figure of Object.values(FIGURES)) {
      const { values } = resolveFigure({ name: figure.name });
      for (const c of figure.controls) {
        if (c.kind !== 'range') continue;
        for (const v of controlValues(c, 11)) {
          const html = figureHtml(figure, { ...values, [c.id]: v }, 'fig-1');
          const input = html.match(new RegExp(`<input type="range" id="fig-1-${c.id}"[^>]*>`))![0];
          const attr = (name: string) => Number(input.match(new RegExp(` ${name}="([^"]*)"`))![1]);
          const fill = input.match(/style="--fill:([\d.]+)%"/);
          expect(fill, `${figure.name}.${c.id}=${v}: ${input}`).not.toBeNull();
          const share = (attr('value') - attr('min')) / (attr('max') - attr('min'));
          expect(Number(fill![1])).toBeCloseTo(share * 100, 1);
        }
      }
    }
  });

  test('the track is filled up to --fill in WebKit and Firefox, in theme colours, not by the browser’s accent', () => {
    expect(figuresCss).toMatch(
      /::-webkit-slider-runnable-track \{[^}]*linear-gradient\(to right, var\(--fig-a\) var\(--fill, 0%\), var\(--line\) var\(--fill, 0%\)\)/,
    );
    expect(figuresCss).toMatch(/::-moz-range-progress \{[^}]*background: var\(--fig-a\)/);
    expect(figuresCss).not.toMatch(/accent-color/);
  });

  test('filled and unfilled parts, and the thumb on the card, stand apart (3:1) in light and dark', () => {
    for (const [name, theme] of Object.entries(THEMES)) {
      // --fig-a is the accent (figures.css).
      expect(contrast(theme['--accent']!, theme['--line']!), name).toBeGreaterThanOrEqual(3);
      expect(contrast(theme['--accent']!, theme['--card']!), name).toBeGreaterThanOrEqual(3);
      expect(contrast(theme['--muted']!, theme['--card']!), name).toBeGreaterThanOrEqual(3);
    }
    expect(figuresCss).toMatch(/--fig-a: var\(--accent\)/);
  });
});
