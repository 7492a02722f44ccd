/** Every explorable figure by name (build time and tests; the browser loads one module per figure instead). */
import { figure as costOfIdle } from './cost-of-idle.ts';
import { figure as dataLoader } from './data-loader.ts';
import { figure as energy } from './energy.ts';
import { figure as decodeBatching } from './decode-batching.ts';
import { figure as kernelTimeline } from './kernel-timeline.ts';
import { figure as kvCache } from './kv-cache.ts';
import { figure as launchOverhead } from './launch-overhead.ts';
import { figure as mfu } from './mfu.ts';
import { figure as sharing } from './sharing.ts';
import { figure as powerClocks } from './power-clocks.ts';
import { figure as roofline } from './roofline.ts';
import { figure as sampling } from './sampling.ts';
import { figure as straggler } from './straggler.ts';
import type { Control, FigureDef, Values } from './types.ts';

/** The figures a card may place, by name. */
export const FIGURES: Record<string, FigureDef> = Object.fromEntries(
  [
    kernelTimeline,
    roofline,
    dataLoader,
    costOfIdle,
    mfu,
    kvCache,
    launchOverhead,
    decodeBatching,
    sampling,
    straggler,
    sharing,
    energy,
    powerClocks,
  ].map((f) => [f.name, f]),
);

/** Figure names, for error messages. */
export const FIGURE_NAMES = Object.keys(FIGURES);

/** One control's value from a directive attribute, or an error saying the fix. */
function parseValue(figure: string, c: Control, raw: string): number | string | Error {
  if (c.kind === 'select') {
    const ok = c.options.some((o) => o.value === raw);
    return ok
      ? raw
      : new Error(`figure "${figure}": ${c.id}="${raw}" is not one of ${c.options.map((o) => o.value).join(', ')}`);
  }
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < c.min || n > c.max)
    return new Error(
      `figure "${figure}": ${c.id}=${raw} must be a number from ${c.min} to ${c.max} (${c.unit || 'a count'})`,
    );
  return n;
}

/**
 * A figure and its starting values from a directive's attributes; throws an Error that names the problem and the
 * accepted names or range. `name` picks the figure; every other attribute must be one of its control ids.
 * @example resolveFigure({ name: 'kernel-timeline', kernelUs: '50' }).values.kernelUs // 50
 */
export function resolveFigure(attributes: Record<string, string>): { figure: FigureDef; values: Values } {
  const name = attributes['name'];
  if (!name) throw new Error(`a figure needs a name: ::figure{name="…"} with one of ${FIGURE_NAMES.join(', ')}`);
  const figure = FIGURES[name];
  if (!figure) throw new Error(`unknown figure "${name}"; known figures: ${FIGURE_NAMES.join(', ')}`);
  const values: Values = Object.fromEntries(figure.controls.map((c) => [c.id, c.value]));
  for (const [key, raw] of Object.entries(attributes)) {
    if (key === 'name') continue;
    const control = figure.controls.find((c) => c.id === key);
    if (!control)
      throw new Error(
        `figure "${name}" has no value "${key}"; it takes ${figure.controls.map((c) => c.id).join(', ')}`,
      );
    const value = parseValue(name, control, raw);
    if (value instanceof Error) throw value;
    values[key] = value;
  }
  return { figure, values };
}
