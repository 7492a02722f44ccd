/**
 * A figure's static HTML, rendered at build time: caption, every control (disabled until the script hydrates it),
 * the chart and the readout. Without JavaScript this is the picture and its numbers; with it, nothing moves.
 */
import { esc } from './format.ts';
import { FIGURE_H, FIGURE_W, type Control, type FigureDef, type Values } from './types.ts';

/** A control's value as shown beside its label. */
export function valueText(c: Control, value: number | string): string {
  if (c.kind === 'select') return c.options.find((o) => o.value === value)?.label ?? String(value);
  const n = Number(value);
  const shown = n >= 1000 ? Math.round(n).toLocaleString('en-US') : String(Number(n.toPrecision(4)));
  return c.unit === '%' ? `${shown}%` : c.unit ? `${shown} ${c.unit}` : shown;
}

/** The slider position for a value (log controls move in log10). */
export function sliderPosition(c: Extract<Control, { kind: 'range' }>, value: number): number {
  return c.log ? Math.log10(value) : value;
}

/**
 * How far along its track a slider's value sits, as a CSS length ("37.5%"): the filled part of the track, drawn by
 * figures.css from `--fill` so it shows in light and dark alike (browsers' own filled track does not in every theme).
 * @example sliderFill({ kind: 'range', id: 'n', label: 'n', unit: '', min: 0, max: 8, step: 1, value: 3 }, 3) // "37.5%"
 */
export function sliderFill(c: Extract<Control, { kind: 'range' }>, value: number): string {
  const lo = sliderPosition(c, c.min);
  const span = sliderPosition(c, c.max) - lo;
  const share = span > 0 ? Math.min(1, Math.max(0, (sliderPosition(c, value) - lo) / span)) : 0;
  return `${Number((share * 100).toFixed(2))}%`;
}

function controlHtml(c: Control, value: number | string, id: string): string {
  const out = `<output id="${id}-o" for="${id}">${esc(valueText(c, value))}</output>`;
  // The unit is in the value beside the label and in aria-valuetext (read with the value), not repeated here.
  const label = `<label for="${id}">${esc(c.label)}</label>`;
  if (c.kind === 'select') {
    const opts = c.options
      .map((o) => `<option value="${esc(o.value)}"${o.value === value ? ' selected' : ''}>${esc(o.label)}</option>`)
      .join('');
    return `<div class="fig-control">${label}<select id="${id}" data-control="${c.id}" disabled>${opts}</select></div>`;
  }
  const lo = sliderPosition(c, c.min);
  const hi = sliderPosition(c, c.max);
  const step = c.log ? 'any' : String(c.step);
  const pos = sliderPosition(c, Number(value));
  return (
    `<div class="fig-control"><div class="fig-label">${label}${out}</div>` +
    `<input type="range" id="${id}" data-control="${c.id}" min="${lo}" max="${hi}" step="${step}" value="${pos}" ` +
    `style="--fill:${sliderFill(c, Number(value))}" ` +
    `aria-valuetext="${esc(valueText(c, value))}" disabled></div>`
  );
}

/**
 * The figure's HTML. `uid` makes element ids unique on the page. The readout (the caption that follows the values)
 * is redrawn on every move; screen readers hear it from the polite live region `.fig-live`, which the script fills
 * only when a change is made (a slider let go or stepped, a choice picked), not on every tick of a drag.
 * @example figureHtml(FIGURES['roofline'], values, 'fig-1') // '<figure class="fig" data-figure="roofline" …'
 */
export function figureHtml(figure: FigureDef, values: Values, uid: string): string {
  const view = figure.view(values);
  const controls = figure.controls.map((c) => controlHtml(c, values[c.id]!, `${uid}-${c.id}`)).join('');
  return (
    `<figure class="fig" id="${uid}" data-figure="${figure.name}" data-values="${esc(JSON.stringify(values))}" ` +
    `aria-labelledby="${uid}-cap">` +
    `<figcaption id="${uid}-cap">${esc(figure.caption)}</figcaption>` +
    `<div class="fig-controls">${controls}</div>` +
    `<svg class="fig-chart" viewBox="0 0 ${FIGURE_W} ${FIGURE_H}" role="img" aria-labelledby="${uid}-r">${view.svg}</svg>` +
    `<p class="fig-readout" id="${uid}-r">${esc(view.readout)}</p>` +
    `<p class="fig-live sr-only" id="${uid}-live" aria-live="polite"></p>` +
    `</figure>`
  );
}
