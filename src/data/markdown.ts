/** Build-time Markdown for quiz text (never shipped to the browser). */
import { markdownToHtml } from 'satteri';

/** Block Markdown (prompts, explanations) to HTML. */
export function md(source: string): string {
  return markdownToHtml(source).html.trim();
}

/** Inline Markdown (an option's text): one paragraph's content, without the <p>. */
export function mdInline(source: string): string {
  const html = md(source);
  const m = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return m && !m[1]!.includes('<p>') ? m[1]! : html;
}
