/**
 * The shape every explorable figure shares: its controls, and a pure `view` from their values to an SVG
 * chart and a one-sentence readout. The same `view` renders the static picture at build time and the live
 * one in the browser, so the two never disagree.
 */

/** A slider. With `log`, the slider moves in log10 steps between `min` and `max` (both > 0). */
export interface RangeControl {
  kind: 'range';
  id: string;
  label: string;
  /** Unit shown after the value ('' for a count). */
  unit: string;
  min: number;
  max: number;
  step: number;
  /** Starting value. */
  value: number;
  log?: boolean;
}

/** A picker (GPU, dtype). */
export interface SelectControl {
  kind: 'select';
  id: string;
  label: string;
  options: readonly { value: string; label: string }[];
  value: string;
}

export type Control = RangeControl | SelectControl;

/** Current control values by control id. */
export type Values = Record<string, number | string>;

/** What a figure shows for one set of values. */
export interface FigureView {
  /** Inner SVG markup (no <svg> wrapper) in a `viewBox` of `FIGURE_W` × `FIGURE_H`. */
  svg: string;
  /** One sentence: the number the figure is about, in words. */
  readout: string;
}

/** One explorable figure. */
export interface FigureDef {
  /** The name a card uses in `::figure{name="…"}`. */
  name: string;
  /** The caption naming it. */
  caption: string;
  controls: readonly Control[];
  view(values: Values): FigureView;
}

/** The SVG coordinate box every figure draws in. */
export const FIGURE_W = 320;
export const FIGURE_H = 180;
