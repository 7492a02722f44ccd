/**
 * Two fixes that live in the style sheets (the phone screenshots show them; this keeps them): a link's underline
 * clears the underscores of inline code, and "Next question" stays on screen above the tab bar after an answer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

/** The declarations of the first rule with exactly this selector (that declares `prop`, if given), comments dropped. */
function declarations(file: string, selector: string, prop?: string): Record<string, string> {
  const css = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g))
    if (m[1]!.trim() === selector && (!prop || new RegExp(`(^|[;\\s])${prop}\\s*:`).test(m[2]!)))
      return Object.fromEntries(
        m[2]!
          .split(';')
          .map((d) => d.split(':').map((s) => s.trim()))
          .filter((d) => d.length >= 2)
          .map(([k, ...v]) => [k!, v.join(':')]),
      );
  return {};
}
const em = (v: string | undefined) => Number(/^([\d.]+)em$/.exec(v ?? '')?.[1] ?? NaN);

describe('style sheets', () => {
  test("a link around inline code draws its underline below the code's underscores (non_blocking)", () => {
    // The underline is drawn with the link's offset, not the code's: the rule must be on the link.
    const plain = em(declarations('src/styles/global.css', 'a')['text-underline-offset']);
    const withCode = em(declarations('src/styles/global.css', 'a:has(code)')['text-underline-offset']);
    expect(plain).toBeGreaterThan(0);
    expect(withCode).toBeGreaterThanOrEqual(0.3); // an underscore sits up to ~0.2em below the baseline, plus padding
  });

  test('after an answer, "Next question" sticks to the bottom of the screen, just above the tab bar', () => {
    const actions = declarations('src/styles/quiz.css', '.after-answer > .actions');
    const tabBar = declarations('src/styles/global.css', 'html', 'scroll-padding-bottom')['scroll-padding-bottom'];
    expect(actions['position']).toBe('sticky');
    expect(actions['bottom']).toBe(tabBar);
    expect(actions['background']).toBe('var(--card)'); // the feedback scrolls under it, not through it
  });
});
