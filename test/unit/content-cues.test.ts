import { describe, expect, test } from 'vitest';
import {
  absoluteCues,
  absoluteWords,
  countCues,
  cueLines,
  cueProblems,
  cueQuestions,
  extremeCredit,
  lengthCues,
  measureCues,
  type CueQuestion,
} from '../../src/lib/content-cues.ts';
import type { Question } from '../../src/schemas/question.ts';

const source = { title: 'A source', url: 'https://example.org/' };
const why = 'Because the docs say so.';

/** A single-choice question whose options have the given texts; the one at `right` is correct. */
function single(right: number, texts: string[]): Question {
  return {
    id: `s-${right}`,
    kind: 'single',
    level: 'core',
    prompt: 'Which one is right?',
    source,
    scenario: false,
    options: texts.map((text, i) => ({ text, why, correct: i === right })),
  };
}

/** A select-all question with `n` options of which the first `k` are correct. */
function multiple(k: number, n = 5, texts?: string[]): Question {
  return {
    id: `m-${k}-${n}`,
    kind: 'multiple',
    level: 'core',
    prompt: 'Which ones are right? Select all that apply.',
    source,
    scenario: false,
    options: Array.from({ length: n }, (_, i) => ({ text: texts?.[i] ?? `option ${i}`, why, correct: i < k })),
  };
}

const at = (topic: string, qs: Question[]): CueQuestion[] =>
  qs.map((question) => ({ file: `${topic}.md`, topic, question }));
/** Four options of lengths 10, 20, 30, 40 characters. */
const graded = ['a'.repeat(10), 'b'.repeat(20), 'c'.repeat(30), 'd'.repeat(40)];
/** A question per position: the right answer is shortest once, longest once, in the middle twice. */
const spread = [0, 1, 2, 3].map((p) => single(p, graded));

describe('extremeCredit', () => {
  test('scores 1 for a lone extreme, 1/k for a k-way tie and 0 otherwise', () => {
    expect(extremeCredit([10, 20, 30], 0, Math.min)).toBe(1);
    expect(extremeCredit([10, 10, 30, 40], 1, Math.min)).toBe(0.5);
    expect(extremeCredit([10, 20, 30], 1, Math.min)).toBe(0);
    expect(extremeCredit([10, 20, 30], 2, Math.max)).toBe(1);
  });
});

describe('length cue', () => {
  test('passes a deck where the right answer is shortest and longest a quarter of the time each', () => {
    const r = measureCues(at('serving', spread));
    expect(r.length.deck).toEqual({ singles: 4, shortest: 0.25, longest: 0.25 });
    expect(cueProblems(r)).toEqual([]);
  });

  test('fails a topic where "pick the shortest" scores above 30%, naming the topic, even when the deck passes', () => {
    const qs = [
      ...at('meters', Array.from({ length: 8 }, () => spread).flat()),
      ...at('serving', [...spread, single(0, graded), single(0, graded)]),
    ];
    const r = lengthCues(qs);
    expect(r.deck.shortest).toBeLessThanOrEqual(0.3);
    expect(r.byTopic.serving!.shortest).toBe(0.5);
    const problems = cueProblems(measureCues(qs));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/topic serving, "pick the shortest option" scores 50% of 6/);
  });

  test('fails the deck when "pick the longest" scores above 30%', () => {
    const problems = cueProblems(measureCues(at('meters', [...spread, single(3, graded), single(3, graded)])));
    expect(problems.join('\n')).toMatch(/the deck, "pick the longest option" scores 50%/);
  });

  test('fails one card whose quiz gives the answer by length, even when its topic passes', () => {
    const card = [single(0, graded), single(0, graded), single(0, graded), single(2, graded)].map((question) => ({
      file: 'content/cards/training/x.md',
      topic: 'training',
      question,
    }));
    const qs = [...at('training', Array.from({ length: 10 }, () => spread).flat()), ...card];
    const r = measureCues(qs);
    expect(r.length.byTopic.training!.shortest).toBeLessThanOrEqual(0.3);
    expect(r.length.byFile['content/cards/training/x.md']!.shortest).toBe(0.75);
    expect(cueProblems(r)).toEqual([
      expect.stringMatching(/^content\/cards\/training\/x\.md: "pick the shortest option" scores 75% of its 4/),
    ]);
  });

  test('counts a tie for shortest as the share a random pick among the tied options scores', () => {
    const tied = single(0, ['x'.repeat(10), 'y'.repeat(10), 'z'.repeat(30), 'w'.repeat(40)]);
    expect(lengthCues(at('meters', [tied])).deck.shortest).toBe(0.5);
  });
});

describe('absolute-word cue', () => {
  test('finds sweeping words but not hyphenated compounds or code', () => {
    expect(absoluteWords('It ALWAYS stalls; only NCCL all-reduce and `all_gather` and read-only maps')).toEqual([
      'always',
      'only',
    ]);
    expect(absoluteWords('Overall, the allocator must never guarantee it')).toEqual(['must', 'never', 'guarantee']);
  });

  test('fails when wrong options carry absolute words more than 5 points more often than right ones', () => {
    const q = single(0, [
      'Right, at 1,830 MHz',
      'It always runs at boost',
      'It never throttles',
      'A specific wrong claim',
    ]);
    const a = absoluteCues(at('meters', [q]));
    expect(a).toMatchObject({ rightOptions: 1, rightWithAbsolute: 0, wrongOptions: 3, wrongWithAbsolute: 2 });
    expect(a.gap).toBeCloseTo(2 / 3);
    expect(a.chanceScore).toBe(0.25);
    expect(a.strikeScore).toBe(0.5);
    expect(cueProblems(measureCues(at('meters', [q]))).join('\n')).toMatch(/gap is 66\.7 points \(max 5\)/);
  });

  test('passes when right and wrong options carry them about equally often', () => {
    const q = multiple(2, 4, [
      'Only the GEMMs run in FP8',
      'A specific right claim',
      'It never syncs',
      'A wrong claim',
    ]);
    const r = measureCues(at('meters', [q]));
    expect(r.absolute.gap).toBe(0);
    expect(cueProblems(r).filter((p) => /absolute/.test(p))).toEqual([]);
  });

  test('fails the mirror tell: right options carrying absolute words far more often than wrong ones', () => {
    const q = single(0, ['Only the GEMMs run in FP8', 'It syncs here', 'A specific wrong claim', 'Another wrong one']);
    const problems = cueProblems(measureCues(at('meters', [q])));
    expect(problems.join('\n')).toMatch(
      /right options lead by 100\.0 points \(max 5\), so "pick the sweeping one" scores/,
    );
  });
});

describe('select-all correct-count cue', () => {
  const mixed = [1, 2, 3, 4, 1, 2, 3, 2, 3, 1].map((k) => multiple(k));

  test('reports the distribution by number of options and passes a mixed one', () => {
    const c = countCues(at('training', [...mixed, multiple(1, 4)]));
    expect(c.byOptions).toEqual({ 4: { 1: 1 }, 5: { 1: 3, 2: 3, 3: 3, 4: 1 } });
    expect(c.allButOne).toBe(1);
    expect(cueProblems(measureCues(at('training', mixed)))).toEqual([]);
  });

  test('fails when one count covers more than 40% of the select-all questions', () => {
    const qs = at('training', [...mixed, ...[3, 3, 3, 3].map((k) => multiple(k))]);
    expect(cueProblems(measureCues(qs)).join('\n')).toMatch(/7 of 14 select-all questions \(50%\) have exactly 3/);
  });

  test('fails when "all but one correct" covers more than 30%, the sweeping-odd-one-out pattern', () => {
    const qs = at('training', [multiple(4), multiple(4), multiple(3, 4), multiple(1), multiple(2), multiple(2, 4)]);
    expect(countCues(qs).allButOne).toBe(3);
    expect(cueProblems(measureCues(qs)).join('\n')).toMatch(
      /3 of 6 select-all questions \(50%\) have all options but one correct/,
    );
  });

  test('fails one count dominating the questions with one number of options', () => {
    const fours = [1, 1, 1, 1, 1, 2, 2, 2, 3, 3].map((k) => multiple(k, 4));
    const fives = [2, 2, 2, 2, 3, 3, 3, 3, 4, 4].map((k) => multiple(k, 5));
    const problems = cueProblems(measureCues(at('training', [...fours, ...fives])));
    expect(problems).toEqual([
      expect.stringMatching(/5 of the 10 select-all questions with 4 options \(50%\) have exactly 1/),
    ]);
  });
});

describe('cueQuestions and cueLines', () => {
  test('scores card questions under their topic and lab debriefs under "labs", and prints every topic', () => {
    const cards = [{ file: 'content/cards/meters/a.md', data: { topic: 'meters', questions: spread } }];
    const qs = cueQuestions(cards, [{ file: 'content/labs/x.md', question: single(1, graded) }]);
    expect(qs.map((q) => q.topic)).toEqual(['meters', 'meters', 'meters', 'meters', 'labs']);
    const lines = cueLines(measureCues(qs)).join('\n');
    expect(lines).toMatch(/deck shortest 20% · longest 20% \(5\)/);
    expect(lines).toMatch(/labs: shortest 0% · longest 0% \(1\)/);
    expect(lines).toMatch(/meters: shortest 25% · longest 25% \(4\)/);
  });
});
