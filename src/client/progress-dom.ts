/**
 * A tiny element builder for the progress page's plain-TypeScript panels (src/client/progress-dashboard.ts):
 * text is set as text (never parsed as HTML), attributes as given, `false`/`null` children left out.
 */

/** A child: a node, text, or nothing (left out). */
export type Child = Node | string | number | false | null | undefined;

/** `h('td', { class: 'num' }, '3')`: an element with attributes (an empty string sets a bare attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) e.setAttribute(name, String(value));
  for (const c of children)
    if (c !== false && c !== null && c !== undefined) e.append(typeof c === 'number' ? String(c) : c);
  return e;
}

/** A visually hidden span for screen readers. */
export function srOnly(text: string): HTMLSpanElement {
  return h('span', { class: 'sr-only' }, text);
}
