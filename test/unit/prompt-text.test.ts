/** What a question's prompt shows where: the results list's first line, the quiz's one hint, an answered option's mark. */
import { describe, expect, test } from 'vitest';
import { md } from '../../src/data/markdown.ts';
import { loadDeck } from '../../src/data/load-deck-files.ts';
import { optionMark, withoutSelectAll } from '../../src/lib/prompt-text.ts';
import { promptParts } from '../../src/lib/prompt-lead.ts';
import { DMON_PROMPT } from './dmon-prompt.ts';

describe('promptParts', () => {
  test('a scenario leads with its first sentence, inline code kept, and keeps its table whole for the opened row', () => {
    const { leadHtml, restHtml } = promptParts(md(DMON_PROMPT), true);
    expect(leadHtml).toBe('A job on one H100 is slow.');
    expect(restHtml).toContain('<code>nvidia-smi dmon -d 1</code>');
    expect(restHtml).toMatch(/<pre><code[^>]*># gpu {4}sm {3}mem\n# Idx {5}% {5}%\n {4}0 {4}12 {5}3\n/);
    expect(restHtml).toContain('What is the GPU waiting for?');
    expect(restHtml).not.toContain('A job on one H100 is slow.'); // said once: in the list, not again when opened
  });

  test('a first sentence that is the whole first line (a table follows) is the lead, with its code', () => {
    const { leadHtml, restHtml } = promptParts(
      md('During a save, `nvidia-smi dmon -s pu` shows:\n\n```\n0 71\n```'),
      true,
    );
    expect(leadHtml).toBe('During a save, <code>nvidia-smi dmon -s pu</code> shows:');
    expect(restHtml).toBe('<pre><code>0 71\n</code></pre>');
  });

  test('a line break ends the lead; a full stop inside code or after "e.g." does not', () => {
    expect(promptParts(md('A loop calls `loss.item()` each step\nand logs it. Why?'), true).leadHtml).toBe(
      'A loop calls <code>loss.item()</code> each step',
    );
    expect(promptParts(md('Use a tool, e.g. `torch.save`, here. Why?'), true).leadHtml).toBe(
      'Use a tool, e.g. <code>torch.save</code>, here.',
    );
  });

  test('a short one-paragraph question is all lead, nothing repeated when opened', () => {
    expect(promptParts(md('Is `GPU-Util` the share of **SMs** busy?'))).toEqual({
      leadHtml: 'Is <code>GPU-Util</code> the share of <strong>SMs</strong> busy?',
      restHtml: '',
    });
  });

  test('every scenario in the deck gets a lead with no preformatted block, and its blocks once when opened', () => {
    const { cards } = loadDeck(process.cwd());
    const scenarios = cards.flatMap((c) => c.data.questions.filter((q) => q.scenario || q.prompt.includes('```')));
    expect(scenarios.length).toBeGreaterThan(10);
    for (const q of scenarios) {
      const html = md(q.prompt);
      const { leadHtml, restHtml } = promptParts(html, q.scenario);
      expect(leadHtml, q.id).not.toMatch(/<pre|<p>|\n/);
      expect(leadHtml.length, q.id).toBeGreaterThan(0);
      expect((restHtml.match(/<pre/g) ?? []).length, q.id).toBe((html.match(/<pre/g) ?? []).length);
    }
  });
});

describe('withoutSelectAll', () => {
  test('leaves "Select all that apply" to the hint, so a multiple-answer question says it once', () => {
    expect(withoutSelectAll(md('Which statements about `FULL_SHARD` are true? Select all that apply.'))).toBe(
      '<p>Which statements about <code>FULL_SHARD</code> are true?</p>',
    );
    expect(withoutSelectAll('<p>Which apply?</p>')).toBe('<p>Which apply?</p>');
  });
});

describe('optionMark', () => {
  test('marks right options ✓ and a wrong pick ✗, with words for a screen reader; others get none', () => {
    expect(optionMark(true, false)).toEqual({ symbol: '✓', label: 'correct answer' });
    expect(optionMark(true, true)).toEqual({ symbol: '✓', label: 'your answer, correct' });
    expect(optionMark(false, true)).toEqual({ symbol: '✗', label: 'your answer, wrong' });
    expect(optionMark(false, false)).toBeNull();
  });
});
