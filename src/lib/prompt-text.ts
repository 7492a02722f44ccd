/**
 * What a question shows in the quiz, from its prompt's HTML (rendered at build time, src/data/markdown.ts): the
 * instruction said once, and the mark an option gets once answered. Pure. (The results list's short first line is
 * src/lib/prompt-lead.ts, loaded with the results only.)
 */

/**
 * A multiple-answer prompt without its closing "Select all that apply.": the quiz says that once,
 * in the hint under the prompt, with the keys to press.
 * @example withoutSelectAll('<p>Which are true? Select all that apply.</p>') // '<p>Which are true?</p>'
 */
export function withoutSelectAll(html: string): string {
  return html.replace(/\s*\(?select all that apply\.?\)?(\s*<\/p>\s*)$/i, '$1');
}

/** What an answered option shows besides its colour: a symbol, and the words a screen reader says. */
export interface OptionMark {
  symbol: '✓' | '✗';
  label: string;
}

/**
 * The mark of an answered option: ✓ on every correct one, ✗ on a wrong one the learner picked, none
 * on the rest.
 * @example optionMark(false, true) // { symbol: '✗', label: 'your answer, wrong' }
 */
export function optionMark(correct: boolean, picked: boolean): OptionMark | null {
  if (correct) return { symbol: '✓', label: picked ? 'your answer, correct' : 'correct answer' };
  return picked ? { symbol: '✗', label: 'your answer, wrong' } : null;
}
