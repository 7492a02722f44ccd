/** Number formatting shared by the figures (pure). */

/**
 * A number with at most `digits` significant digits and thousands separators.
 * @example fmt(1234.5) // "1,235"
 */
export function fmt(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 10 ** digits) return Math.round(n).toLocaleString('en-US');
  // Halves round up as the cards round them (0.1725 → 0.173), not down as its binary value would.
  const nudged = n * (1 + 1e-12);
  return Number(nudged.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** A share 0–1 as a whole percent. @example pct(0.834) // "83%" */
export function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Escape text for SVG/HTML. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An SVG <text> element. */
export function text(x: number, y: number, s: string, cls = 'fig-t', anchor = 'start'): string {
  return `<text x="${x}" y="${y}" class="${cls}" text-anchor="${anchor}">${esc(s)}</text>`;
}

/** An SVG <rect>. */
export function rect(x: number, y: number, w: number, h: number, cls: string): string {
  const r = (v: number) => Math.round(v * 10) / 10;
  return `<rect x="${r(x)}" y="${r(y)}" width="${r(Math.max(0, w))}" height="${r(Math.max(0, h))}" class="${cls}"/>`;
}
