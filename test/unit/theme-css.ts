/** Test helper: the theme's colours from src/styles/global.css, and the WCAG contrast between two of them. */
import { readFileSync } from 'node:fs';

const globalCss = readFileSync('src/styles/global.css', 'utf8');

/** The custom properties of the first rule whose selector is exactly `selector`. */
function ruleVars(css: string, selector: string): Record<string, string> {
  const at = css.indexOf(`${selector} {`);
  if (at < 0) throw new Error(`no "${selector} {" rule in the stylesheet`);
  const body = css.slice(at, css.indexOf('}', at));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

/** The light and the dark theme's custom properties (dark: the values a learner who picks dark gets). */
export const THEMES = {
  light: ruleVars(globalCss, ':root'),
  dark: ruleVars(globalCss, ":root[data-theme='dark']"),
} as const;

/** WCAG 2 contrast ratio of two #rrggbb colours. @example contrast('#000000', '#ffffff') // 21 */
export function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
