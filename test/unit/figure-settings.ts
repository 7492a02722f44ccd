/**
 * Test helper: settings to sweep an explorable figure over. Each control alone across its whole range (others at
 * their starting values), each pair of controls on a coarse grid, and a seeded sample of whole settings: every
 * choice of a picker, both ends of every slider, log sliders spaced as they move.
 */
import { rng } from '../../src/lib/random.ts';
import type { Control, FigureDef, RangeControl, Values } from '../../src/lib/figures/types.ts';

/** `n` values of a slider from its min to its max, on its steps (log sliders: evenly in log10, 3 digits). */
function rangeValues(c: RangeControl, n: number): number[] {
  const out = new Set<number>([c.min, c.max, c.value]);
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1);
    if (c.log) out.add(Number((10 ** (Math.log10(c.min) + t * Math.log10(c.max / c.min))).toPrecision(3)));
    else out.add(Math.min(c.max, c.min + Math.round((t * (c.max - c.min)) / c.step) * c.step));
  }
  return [...out].filter((v) => v >= c.min && v <= c.max).sort((a, b) => a - b);
}

/** Every value a control takes in the sweep: `n` points of a slider, every option of a picker. */
export function controlValues(c: Control, n: number): (number | string)[] {
  return c.kind === 'select' ? c.options.map((o) => o.value) : rangeValues(c, n);
}

/** The settings a figure is checked at (a few thousand at most). */
export function sweep(figure: FigureDef, samples = 400): Values[] {
  const start: Values = Object.fromEntries(figure.controls.map((c) => [c.id, c.value]));
  const out: Values[] = [];
  for (const c of figure.controls) for (const v of controlValues(c, 41)) out.push({ ...start, [c.id]: v });
  figure.controls.forEach((a, i) => {
    for (const b of figure.controls.slice(i + 1))
      for (const va of controlValues(a, 6))
        for (const vb of controlValues(b, 6)) out.push({ ...start, [a.id]: va, [b.id]: vb });
  });
  const random = rng(`sweep:${figure.name}`);
  for (let k = 0; k < samples; k++) {
    const values: Values = {};
    for (const c of figure.controls) {
      const all = controlValues(c, 41);
      values[c.id] = all[Math.floor(random() * all.length)]!;
    }
    out.push(values);
  }
  return out;
}

/**
 * Contrast words ("but", "yet", "only", "under") set two numbers of one unit against each other: the pairs in a
 * sentence where they are equal as shown ("GPU-Util reads 49% but SM activity is 49%").
 */
export function falseContrasts(sentence: string): string[] {
  const bad: string[] = [];
  const re =
    /([\d][\d,.]*)\s?(%|W|ms|µs|MHz|TFLOP\/s|GB)[^.;:\d]*?\b(but|yet|only|under)\b[^.;:\d]*?([\d][\d,.]*)\s?\2/g;
  for (const m of sentence.matchAll(re)) if (m[1] === m[4]) bad.push(m[0]);
  return bad;
}
