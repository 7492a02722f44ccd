/** Three small quiz questions (single, multiple, numeric) for the quiz unit tests. */
import type { ChoiceQuizQuestion, NumericQuizQuestion } from '../../src/lib/quiz.ts';

const base = {
  cardId: 'c',
  cardTitle: 'C',
  topic: 'meters',
  level: 'core' as const,
  scenario: false,
  promptHtml: '<p>?</p>',
  source: { title: 's', url: 'https://x.org' },
};
const opt = (key: string, correct: boolean) => ({ key, html: key, whyHtml: key, correct });
export const single: ChoiceQuizQuestion = {
  ...base,
  id: 's',
  kind: 'single',
  options: [opt('a', false), opt('b', true), opt('c', false)],
};
export const multi: ChoiceQuizQuestion = {
  ...base,
  id: 'm',
  kind: 'multiple',
  options: [opt('a', true), opt('b', true), opt('c', false)],
};
export const numeric: NumericQuizQuestion = {
  ...base,
  id: 'n',
  kind: 'numeric',
  answer: 40,
  tolerance: 1,
  unit: '%',
  explanationHtml: '',
  mistakes: [{ value: 20, whyHtml: 'sparse peak' }],
};
