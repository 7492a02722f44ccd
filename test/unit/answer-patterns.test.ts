import { describe, expect, test } from 'vitest';
import {
  answerPatternProblems,
  answerPatterns,
  labLengthProblems,
  strictlyLongest,
  strictlyShortest,
} from '../../src/lib/answer-patterns.ts';
import { totalsProblems, TOTALS_BAR } from '../../src/lib/deck-totals.ts';
import type { Question } from '../../src/schemas/question.ts';

const source = { title: 'A source', url: 'https://example.org/' };
const why = 'Because the docs say so.';

/** A single-choice question with `n` options, the correct one at `at`, option texts of the given lengths. */
function single(at: number, lengths = [20, 20, 20, 20]): Question {
  return {
    id: `s-${at}`,
    kind: 'single',
    level: 'core',
    prompt: 'Which one is right?',
    source,
    scenario: false,
    options: lengths.map((l, i) => ({ text: 'x'.repeat(l), why, correct: i === at })),
  };
}

/** A multi-select question with 5 options of which the first `k` are correct. */
function multiple(k: number): Question {
  return {
    id: `m-${k}`,
    kind: 'multiple',
    level: 'core',
    prompt: 'Which ones are right?',
    source,
    scenario: false,
    options: [0, 1, 2, 3, 4].map((i) => ({ text: `option ${i}`, why, correct: i < k })),
  };
}

const sourced = (qs: Question[]) => qs.map((question) => ({ file: 'content/cards/x/y.md', question }));
const balanced = [0, 1, 2, 3].flatMap((p) => [single(p), single(p)]);

describe('answerPatterns', () => {
  test('a deck with correct answers spread over positions, even lengths and mixed counts passes', () => {
    const stats = answerPatterns(sourced([...balanced, multiple(1), multiple(2), multiple(3), multiple(4)]));
    expect(stats.correctPosition).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(stats.longestCorrectShare).toBe(0);
    expect(stats.correctCounts).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
    expect(answerPatternProblems(stats)).toEqual([]);
  });

  test('flags the correct option parked at one position, naming the position and the fix', () => {
    const problems = answerPatternProblems(answerPatterns(sourced([...balanced, single(0), single(0), single(0)])));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/position 1 in 45%.*moving correct options away from position 1/);
  });

  test('flags a deck where the correct option is the longest more than a quarter of the time', () => {
    const tell = [0, 1, 2, 3].map((p) =>
      single(
        p,
        [20, 20, 20, 20].map((l, i) => (i === p ? 60 : l)),
      ),
    );
    const stats = answerPatterns(sourced([...balanced, ...tell]));
    expect(stats.longestCorrectShare).toBeCloseTo(4 / 12);
    expect(answerPatternProblems(stats).join()).toMatch(/longest in 33%/);
  });

  test('a tie for longest (or shortest) is not a tell', () => {
    expect(strictlyLongest(['aaa', 'bbb', 'c'])).toBe(-1);
    expect(strictlyLongest(['aaa', 'bbbb', 'c'])).toBe(1);
    expect(strictlyShortest(['a', 'bbb', 'c'])).toBe(-1);
    expect(strictlyShortest(['aa', 'bbbb', 'c'])).toBe(2);
  });

  test('flags multi-selects that mostly have the same number of correct options', () => {
    const stats = answerPatterns(sourced([...balanced, multiple(3), multiple(3), multiple(3), multiple(1)]));
    expect(answerPatternProblems(stats)).toEqual([
      expect.stringMatching(/3 of 4 multi-select questions \(75%\) have exactly 3 correct/),
    ]);
  });

  test('exactly half with one count is allowed', () => {
    const stats = answerPatterns(sourced([...balanced, multiple(3), multiple(3), multiple(1), multiple(4)]));
    expect(answerPatternProblems(stats)).toEqual([]);
  });
});

describe('totalsProblems', () => {
  const full = {
    cards: TOTALS_BAR.cards,
    questions: TOTALS_BAR.questions,
    byKind: { single: 1, multiple: 1, numeric: 1 },
    scenario: TOTALS_BAR.scenario,
    curatedQuizzes: TOTALS_BAR.curatedQuizzes,
  };
  test('a deck at the bar passes', () => {
    expect(totalsProblems(full)).toEqual([]);
  });
  test('says how far each short total is from the bar, and which kind is missing', () => {
    expect(totalsProblems({ ...full, cards: 41, scenario: 43, byKind: { single: 1, numeric: 1 } })).toEqual([
      'Deck: 41 cards; the bar is at least 62 (21 more).',
      'Deck: 43 scenario questions; the bar is at least 70 (27 more).',
      'Deck: no multiple questions; the bar needs all three kinds.',
    ]);
  });
});

describe('labLengthProblems: a lab debrief must not give its answers away by length', () => {
  const lab = (file: string, qs: Question[]) => qs.map((question) => ({ file, question }));
  const middle = single(1, [70, 74, 78]);

  test('passes a lab whose correct options sit between the others in length', () => {
    expect(labLengthProblems(lab('content/labs/a.md', [middle, middle, single(0, [74, 70, 78])]))).toEqual([]);
  });

  test('one longest-correct question in three is allowed; two are not, and the file is named', () => {
    const longest = single(2, [70, 74, 90]);
    expect(labLengthProblems(lab('content/labs/a.md', [longest, middle, middle]))).toEqual([]);
    expect(labLengthProblems(lab('content/labs/a.md', [longest, longest, middle]))).toEqual([
      expect.stringMatching(/^content\/labs\/a\.md: the correct option is the strictly longest in 2 of 3/),
    ]);
  });

  test('the mirror tell, the correct option always the shortest, is flagged too; each lab on its own', () => {
    const shortest = single(0, [40, 74, 78]);
    const problems = labLengthProblems([
      ...lab('content/labs/a.md', [shortest, shortest]),
      ...lab('content/labs/b.md', [middle, middle]),
    ]);
    expect(problems).toEqual([expect.stringMatching(/^content\/labs\/a\.md: .*strictly shortest in 2 of 2/)]);
  });
});
