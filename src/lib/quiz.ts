/**
 * The quiz's data as the browser sees it, and grading. Pure: no DOM, no React.
 * Markdown is rendered to HTML at build time, so the island ships no Markdown parser.
 */
import { shuffled } from './random.ts';

/** One option of a choice question; `key` is stable ("a", "b", ...) in authored order. */
export interface QuizOption {
  key: string;
  html: string;
  whyHtml: string;
  correct: boolean;
}

interface QuizQuestionBase {
  id: string;
  cardId: string;
  cardTitle: string;
  topic: string;
  level: 'intro' | 'core' | 'advanced';
  scenario: boolean;
  promptHtml: string;
  source: { title: string; url: string };
}

export interface ChoiceQuizQuestion extends QuizQuestionBase {
  kind: 'single' | 'multiple';
  options: QuizOption[];
}

export interface NumericQuizQuestion extends QuizQuestionBase {
  kind: 'numeric';
  answer: number;
  tolerance: number;
  unit: string;
  explanationHtml: string;
  mistakes: { value: number; whyHtml: string }[];
}

export type QuizQuestion = ChoiceQuizQuestion | NumericQuizQuestion;

/** What the learner gave. */
export type QuizResponse = { kind: 'single' | 'multiple'; choices: string[] } | { kind: 'numeric'; value: number };

/** Option keys: a, b, c, ... */
export const optionKey = (i: number): string => String.fromCharCode(97 + i);

/** Options in a per-attempt seeded order (never a positional "all of the above": the schema forbids them). */
export function shuffledOptions(q: ChoiceQuizQuestion, seed: string): QuizOption[] {
  return shuffled(q.options, `${seed}:${q.id}`);
}

/** True when the response is exactly right: the one correct option, every correct option and no wrong one, or a number within tolerance. */
export function isCorrect(q: QuizQuestion, r: QuizResponse): boolean {
  if (q.kind === 'numeric')
    return r.kind === 'numeric' && Number.isFinite(r.value) && Math.abs(r.value - q.answer) <= q.tolerance + 1e-9;
  if (r.kind === 'numeric') return false;
  const want = q.options
    .filter((o) => o.correct)
    .map((o) => o.key)
    .sort();
  const got = [...new Set(r.choices)].sort();
  return want.length === got.length && want.every((k, i) => k === got[i]);
}

/** The matching known mistake for a numeric answer, if any (within the question's tolerance). */
export function matchMistake(q: NumericQuizQuestion, value: number): { value: number; whyHtml: string } | undefined {
  return q.mistakes.find((m) => Math.abs(m.value - value) <= q.tolerance);
}

/**
 * Reads a number as people type it: "1,234.5", "12.5 %", "3e9", "0,25". Returns null when it is not a number.
 * @example parseNumber('1,234.5') // 1234.5
 */
export function parseNumber(input: string): number | null {
  let s = input
    .trim()
    .replace(/[\s\u00a0\u202f_]/g, '')
    .replace(/(%|[a-zA-Z$€£/]+)$/u, '');
  if (s.includes(',') && s.includes('.')) s = s.replace(/,/g, '');
  else if (/^-?\d{1,3}(,\d{3})+$/.test(s)) s = s.replace(/,/g, '');
  else s = s.replace(',', '.');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** Formats a number for display with up to 4 significant decimals, no trailing zeros. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 4 });
}
