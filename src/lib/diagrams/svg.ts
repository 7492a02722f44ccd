/**
 * Drawing helpers for the static diagrams (src/lib/diagrams/): boxes with centred lines of text, lines and arrows.
 * Everything is drawn with classes that src/styles/diagrams.css colours from the page's own variables, so a diagram
 * follows the light or dark theme with the page.
 */
import { esc } from '../figures/format.ts';

const r1 = (v: number) => Math.round(v * 10) / 10;

/** SVG text; `cls` 'dg-s' for small muted text, 'dg-bold' for bold. */
export function label(x: number, y: number, s: string, cls = '', anchor: 'start' | 'middle' | 'end' = 'start'): string {
  const c = cls ? ` class="${cls}"` : '';
  return `<text x="${r1(x)}" y="${r1(y)}"${c} text-anchor="${anchor}">${esc(s)}</text>`;
}

/** A box with its lines of text centred (the first line bold when there are several). `cls`: dg-box, dg-hi, dg-soft. */
export function box(x: number, y: number, w: number, h: number, lines: readonly string[], cls = 'dg-box'): string {
  const lineH = 13;
  const top = y + h / 2 - ((lines.length - 1) * lineH) / 2 + 4;
  return (
    `<rect x="${r1(x)}" y="${r1(y)}" width="${r1(w)}" height="${r1(h)}" rx="4" class="${cls}"/>` +
    lines
      .map((s, i) => label(x + w / 2, top + i * lineH, s, i === 0 && lines.length > 1 ? 'dg-bold' : '', 'middle'))
      .join('')
  );
}

/** A plain line (`dashed` for an optional or slower path). */
export function line(x1: number, y1: number, x2: number, y2: number, dashed = false): string {
  return `<line x1="${r1(x1)}" y1="${r1(y1)}" x2="${r1(x2)}" y2="${r1(y2)}" class="dg-line${dashed ? ' dg-dash' : ''}"/>`;
}

/** An arrowhead at (x2, y2) pointing along the line from (x1, y1). */
function head(x1: number, y1: number, x2: number, y2: number): string {
  const a = Math.atan2(y2 - y1, x2 - x1);
  const p = (da: number) => `${r1(x2 - 6 * Math.cos(a + da))},${r1(y2 - 6 * Math.sin(a + da))}`;
  return `<polygon points="${r1(x2)},${r1(y2)} ${p(0.45)} ${p(-0.45)}" class="dg-head"/>`;
}

/** An arrow from (x1, y1) to (x2, y2); `both` puts a head at each end. */
export function arrow(x1: number, y1: number, x2: number, y2: number, opts: { both?: boolean; dashed?: boolean } = {}) {
  return line(x1, y1, x2, y2, opts.dashed) + head(x1, y1, x2, y2) + (opts.both ? head(x2, y2, x1, y1) : '');
}

/** A filled bar (a kernel, a launch, a phase) with an optional centred label. `cls`: dg-a, dg-b, dg-soft. */
export function bar(x: number, y: number, w: number, h: number, cls: string, text = ''): string {
  return (
    `<rect x="${r1(x)}" y="${r1(y)}" width="${r1(w)}" height="${r1(h)}" class="${cls}"/>` +
    (text
      ? label(x + w / 2, y + h / 2 + 4, text, cls === 'dg-soft' ? '' : cls === 'dg-b' ? 'dg-inv' : 'dg-on', 'middle')
      : '')
  );
}
