/**
 * The recovery key as a QR code (uqr: SVG, no canvas; loaded only when a key is shown). Alphanumeric mode holds the
 * key's 69 characters (56 and 13 dashes) at version 4, error correction M; a phone's camera app reads it as text.
 */
import { renderSVG } from 'uqr';

/** An `<svg>` element of `text` with an accessible name. */
export function qrSvg(text: string, label: string): Element {
  const holder = document.createElement('div');
  holder.innerHTML = renderSVG(text, { ecc: 'M', border: 2 });
  const svg = holder.firstElementChild!;
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  return svg;
}
