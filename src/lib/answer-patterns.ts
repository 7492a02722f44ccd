/**
 * Answer patterns a test-wise learner could exploit without knowing the material: the correct
 * single-choice option always in the same place or always the longest, and "select all that apply"
 * questions that nearly always have the same number of correct options. Pure; the content test and
 * `npm run content:check` run it over every card question and every lab debrief.
 */
import type { Question } from '../schemas/question.ts';

/** A question and the file it lives in (a card or a lab), for messages that name the file. */
export interface SourcedQuestion {
  file: string;
  question: Question;
}

/** Thresholds of the answer-pattern bar (issue #17, "Bar"). */
export const PATTERN_BAR = {
  /** Each of the first four single-choice positions holds the correct option at least this often. */
  positionMin: 0.15,
  /** …and at most this often. */
  positionMax: 0.35,
  /** At most this share of single-choice questions may have the correct option as the strictly longest. */
  longestMax: 0.25,
  /** No single number of correct options may cover more than this share of the multi-select questions. */
  correctCountMax: 0.5,
  /**
   * In one lab's debrief, at most this share of the choice questions may have the correct option as the strictly
   * longest (or, the mirror tell, the strictly shortest): a lab is a short quiz, so the tell must not repeat in it.
   */
  perLabLengthMax: 1 / 3,
} as const;

/** How the deck's answers are laid out. */
export interface AnswerPatternStats {
  /** Single-choice questions counted. */
  singles: number;
  /** Share of single-choice questions whose correct option sits at each authored position (index 0 = first). */
  correctPosition: number[];
  /** Share of single-choice questions whose correct option is the strictly longest. */
  longestCorrectShare: number;
  /** Multi-select questions counted. */
  multiples: number;
  /** Multi-select questions by their number of correct options, e.g. `{ 1: 4, 3: 12 }`. */
  correctCounts: Record<number, number>;
}

/** Index of the one option whose length is `pick` of all lengths, or -1 when two or more share it. */
function strictlyExtreme(texts: readonly string[], pick: (...xs: number[]) => number): number {
  const lengths = texts.map((t) => t.length);
  const target = pick(...lengths);
  return lengths.filter((l) => l === target).length === 1 ? lengths.indexOf(target) : -1;
}

/** Index of the strictly longest option's text, or -1 when two or more tie for longest. */
export function strictlyLongest(texts: readonly string[]): number {
  return strictlyExtreme(texts, Math.max);
}

/** Index of the strictly shortest option's text, or -1 when two or more tie for shortest. */
export function strictlyShortest(texts: readonly string[]): number {
  return strictlyExtreme(texts, Math.min);
}

/**
 * One problem per lab (questions grouped by file) whose debrief gives the answer away by length: the correct option
 * is the strictly longest, or the strictly shortest, in more than `PATTERN_BAR.perLabLengthMax` of its single-choice
 * questions.
 * @example labLengthProblems([{ file: 'content/labs/busy-in-time.md', question: longestIsRight }]) // ["content/labs/busy-in-time.md: …"]
 */
export function labLengthProblems(questions: readonly SourcedQuestion[]): string[] {
  const byFile = new Map<string, { singles: number; longest: number; shortest: number }>();
  for (const { file, question: q } of questions) {
    if (q.kind !== 'single') continue;
    const texts = q.options.map((o) => o.text);
    const correct = q.options.findIndex((o) => o.correct);
    const tally = byFile.get(file) ?? { singles: 0, longest: 0, shortest: 0 };
    tally.singles++;
    if (strictlyLongest(texts) === correct) tally.longest++;
    if (strictlyShortest(texts) === correct) tally.shortest++;
    byFile.set(file, tally);
  }
  const problems: string[] = [];
  for (const [file, t] of byFile)
    for (const [which, n] of [
      ['longest', t.longest],
      ['shortest', t.shortest],
    ] as const)
      if (n / t.singles > PATTERN_BAR.perLabLengthMax)
        problems.push(
          `${file}: the correct option is the strictly ${which} in ${n} of ${t.singles} single-choice questions (at most a third may be). Make the options about the same length, with the right one neither the longest nor the shortest.`,
        );
  return problems;
}

/**
 * Counts correct positions, longest-is-correct and correct-option counts.
 * @example answerPatterns([{ file: 'a.md', question: single }]).correctPosition // [0, 1]
 */
export function answerPatterns(questions: readonly SourcedQuestion[]): AnswerPatternStats {
  const positions: number[] = [];
  let longestCorrect = 0;
  const correctCounts: Record<number, number> = {};
  let multiples = 0;
  for (const { question: q } of questions) {
    if (q.kind === 'single') {
      const correct = q.options.findIndex((o) => o.correct);
      positions.push(correct);
      if (strictlyLongest(q.options.map((o) => o.text)) === correct) longestCorrect++;
    } else if (q.kind === 'multiple') {
      multiples++;
      const n = q.options.filter((o) => o.correct).length;
      correctCounts[n] = (correctCounts[n] ?? 0) + 1;
    }
  }
  const singles = positions.length;
  const slots = Math.max(0, ...positions) + 1;
  const correctPosition = Array.from({ length: slots }, (_, p) =>
    singles ? positions.filter((x) => x === p).length / singles : 0,
  );
  return {
    singles,
    correctPosition,
    longestCorrectShare: singles ? longestCorrect / singles : 0,
    multiples,
    correctCounts,
  };
}

const pct = (share: number) => `${(share * 100).toFixed(0)}%`;

/** The bar's verdict on the stats: one message per breach, each saying how to fix it. */
export function answerPatternProblems(stats: AnswerPatternStats): string[] {
  const problems: string[] = [];
  const { positionMin, positionMax, longestMax, correctCountMax } = PATTERN_BAR;
  if (stats.singles > 0)
    for (let p = 0; p < 4; p++) {
      const share = stats.correctPosition[p] ?? 0;
      if (share < positionMin || share > positionMax)
        problems.push(
          `Deck: the correct option is at position ${p + 1} in ${pct(share)} of single-choice questions (cards and lab debriefs); keep each of positions 1–4 between ${pct(positionMin)} and ${pct(positionMax)} by moving correct options ${share > positionMax ? 'away from' : 'to'} position ${p + 1}.`,
        );
    }
  if (stats.longestCorrectShare > longestMax)
    problems.push(
      `Deck: the correct option is the longest in ${pct(stats.longestCorrectShare)} of single-choice questions (max ${pct(longestMax)}). Shorten right answers or make wrong ones as specific as right ones.`,
    );
  for (const [count, n] of Object.entries(stats.correctCounts)) {
    const share = n / stats.multiples;
    if (share > correctCountMax)
      problems.push(
        `Deck: ${n} of ${stats.multiples} multi-select questions (${pct(share)}) have exactly ${count} correct option(s); no count may exceed ${pct(correctCountMax)}. Write more items with 1 correct or with all but one correct.`,
      );
  }
  return problems;
}
