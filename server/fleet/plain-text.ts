/**
 * Text from outside (Prometheus label values, Prometheus error messages, URLs an operator typed) made safe to
 * print: reports are data, not markup. Three uses:
 * - `terminalText`: control characters (escape sequences, carriage returns, line breaks) and bidi overrides
 *   removed, cut to a length; what every message from Prometheus goes through before a terminal sees it.
 * - `markdownCell`: the same, then escaped so a Markdown renderer shows it as text inside one table cell
 *   (no HTML, no links, no extra columns, no headings).
 * - `redactUrl`: a URL with its user and password replaced, even when it does not parse.
 */

/** C0 and C1 controls (ESC, CR, LF, TAB, DEL…) and the Unicode bidi controls that reorder what a terminal shows. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with control and bidi characters replaced by a space (runs collapsed) and cut to `maxChars`
 * (an ellipsis marks the cut).
 * @example terminalText('\u001b[31mred\u001b[0m') // '[31mred [0m'
 */
export function terminalText(text: string, maxChars = 500): string {
  const flat = String(text).replace(CONTROLS, ' ').replace(/ {2,}/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/**
 * `text` terminal-safe (terminalText), and when long its first `head` and last `tail` characters: an engine's error
 * names the query first and its reason last, so a cut end would lose the reason.
 * @example terminalEnds('abcdefghijklmnopqrstuvwxyz', 2, 3) // 'ab … xyz'
 */
export function terminalEnds(text: string, head: number, tail: number): string {
  const flat = terminalText(text, 100_000);
  return flat.length > head + tail + 10 ? `${flat.slice(0, head)} … ${flat.slice(-tail)}` : flat;
}

/**
 * `text` as the content of one Markdown table cell: terminal-safe (above), then `&`, `<` and `>` as entities
 * (no HTML), and the characters Markdown gives a meaning (`\ | [ ] ( ) * _ \` ~ # !`) backslash-escaped, so
 * a label value can neither add a column, nor start a link, an image or emphasis.
 * @example markdownCell('a|b <img src=x onerror=alert(1)>') // 'a\\|b &lt;img src=x onerror=alert\\(1\\)&gt;'
 */
export function markdownCell(text: string, maxChars = 200): string {
  return terminalText(text, maxChars)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\|[\]()*_`~#!]/g, (c) => `\\${c}`);
}

/**
 * `url` with everything up to its last `@` (a `user:password@`, even one with `/` or `@` inside that keeps it
 * from parsing) replaced by `***@`, and made terminal-safe.
 * @example redactUrl('http://admin:hunter2@prom:9090') // 'http://***@prom:9090'
 */
export function redactUrl(url: string): string {
  const s = String(url);
  const at = s.lastIndexOf('@');
  if (at < 0) return terminalText(s, 300);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(s)?.[0] ?? '';
  return terminalText(`${scheme}***${s.slice(at)}`, 300);
}

/** `text` with every secret in `secrets` (non-empty ones) replaced by `***`. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}
