/**
 * The one-line directive a card uses to place a figure, on a line of its own:
 *   ::figure{name="roofline" intensity=64 gpu="a100-sxm-80gb"}
 * Parsed from the paragraph text Markdown leaves it in (straight or typographic quotes, since Astro's smart
 * punctuation curls them before plugins run).
 */

const LINE = /^::(?:figure|diagram)\s*\{([^}]*)\}\s*$/;
const ATTR = /\s*([A-Za-z][\w-]*)\s*=\s*(?:["“”']([^"“”']*)["“”']|([^\s"“”']+))/y;

/** True when a paragraph's text is meant as a figure directive (starts with `::figure`). */
export function looksLikeFigure(text: string): boolean {
  return text.trimStart().startsWith('::figure');
}

/** True when a paragraph's text is meant as a static diagram (`::diagram{name="…"}`, src/lib/diagrams/). */
export function looksLikeDiagram(text: string): boolean {
  return text.trimStart().startsWith('::diagram');
}

/**
 * The attributes of a `::figure{…}` (or `::diagram{…}`) line; throws saying the expected form when the line is malformed.
 * @example parseFigureLine('::figure{name="mfu" gpus=8}') // { name: 'mfu', gpus: '8' }
 */
export function parseFigureLine(line: string): Record<string, string> {
  const m = LINE.exec(line.trim());
  if (!m)
    throw new Error(
      `cannot read "${line.trim()}": write ::figure{name="…" key=value …} (or ::diagram{name="…"}) on a line of its own`,
    );
  const body = m[1]!;
  const attrs: Record<string, string> = {};
  ATTR.lastIndex = 0;
  let pos = 0;
  while (pos < body.length && body.slice(pos).trim() !== '') {
    ATTR.lastIndex = pos;
    const a = ATTR.exec(body);
    if (!a)
      throw new Error(`cannot read "${body.slice(pos).trim()}" in "${line.trim()}": write key=value or key="value"`);
    if (Object.hasOwn(attrs, a[1]!)) throw new Error(`"${a[1]}" is given twice in "${line.trim()}"`);
    attrs[a[1]!] = a[2] ?? a[3]!;
    pos = ATTR.lastIndex;
  }
  return attrs;
}
