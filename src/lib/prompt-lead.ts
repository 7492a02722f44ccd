/**
 * The short first line the quiz results give a long prompt (a scenario with its table), from the prompt's HTML.
 * Pure; loaded with the results (src/islands/Summary.tsx), not with the quiz.
 */

/** A prompt split for the results list: its first sentence or line, and the rest. */
export interface PromptParts {
  /** Inline HTML (a `<code>` kept), for one line in a list. */
  leadHtml: string;
  /** Block HTML of everything after the lead (the scenario's table included); '' when the lead is all. */
  restHtml: string;
}

/** Words whose full stop does not end a sentence. */
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|vs|etc|approx|cf)$/i;

/** The index just past the end of the first sentence or line of inline HTML, outside tags; -1 when none. */
function sentenceEnd(inline: string): number {
  let depth = 0;
  for (let i = 0; i < inline.length; i++) {
    const c = inline[i]!;
    if (c === '<') {
      const close = inline.indexOf('>', i);
      if (close < 0) return -1;
      const tag = inline.slice(i, close + 1);
      if (/^<br\b/i.test(tag) && depth === 0) return i;
      if (tag.startsWith('</')) depth = Math.max(0, depth - 1);
      else if (!tag.endsWith('/>')) depth++;
      i = close;
    } else if (depth === 0 && c === '\n') return i;
    else if (
      depth === 0 &&
      /[.?!]/.test(c) &&
      /\s/.test(inline[i + 1] ?? '') &&
      !ABBREVIATIONS.test(inline.slice(0, i))
    )
      return i + 1;
  }
  return -1;
}

/**
 * Splits a prompt for a one-line summary: a one-paragraph prompt is all lead; a longer one (a scenario
 * with its `nvidia-smi dmon` table, several paragraphs, a list) leads with its first sentence or line,
 * and keeps the rest, table and all, to show once when the row is opened.
 * @example promptParts('<p>Is <code>sm</code> busy?</p>') // { leadHtml: 'Is <code>sm</code> busy?', restHtml: '' }
 * @example promptParts('<p>A job stalls. Why?</p>', true) // { leadHtml: 'A job stalls.', restHtml: '<p>Why?</p>' }
 */
export function promptParts(html: string, scenario = false): PromptParts {
  const trimmed = html.trim();
  const first = /^<p>([\s\S]*?)<\/p>/.exec(trimmed);
  if (!first) return { leadHtml: '', restHtml: trimmed };
  const after = trimmed.slice(first[0].length).trim();
  const inline = first[1]!;
  if (!after && !scenario) return { leadHtml: inline.trim(), restHtml: '' };
  const end = sentenceEnd(inline);
  const lead = (end < 0 ? inline : inline.slice(0, end)).trim();
  const tail = (end < 0 ? '' : inline.slice(end)).replace(/^(\s|<br\s*\/?>)+/i, '').trim();
  return { leadHtml: lead, restHtml: [tail && `<p>${tail}</p>`, after].filter(Boolean).join('\n') };
}
