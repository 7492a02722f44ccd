import { describe, expect, test } from 'vitest';
import { loadDeck, loadExtras, loadLabDebriefs } from '../../src/data/load-deck-files.ts';
import { checkQuality, promptSimilarity, readingMinutes } from '../../src/lib/content-quality.ts';
import { labLengthProblems, PATTERN_BAR } from '../../src/lib/answer-patterns.ts';
import { totalsProblems } from '../../src/lib/deck-totals.ts';
import { cueProblems, cueQuestions, measureCues } from '../../src/lib/content-cues.ts';

const deck = loadDeck(process.cwd());
const labs = loadLabDebriefs(process.cwd());

describe('the deck in content/', () => {
  test('every card passes the schema and the cross-file checks', () => {
    expect(deck.problems).toEqual([]);
    expect(deck.cards.length).toBeGreaterThan(0);
  });

  test('meets the quality bar: reading time, question counts, balanced answers, no near-duplicates', () => {
    expect(labs.problems).toEqual([]);
    const report = checkQuality(deck.cards, true, labs.questions);
    expect(report.problems).toEqual([]);
  });

  test('answers leave no pattern to game: positions 15–35%, longest correct ≤ 25%, no correct-count above half', () => {
    expect(labs.questions.length).toBeGreaterThan(0);
    const { stats } = checkQuality(deck.cards, true, labs.questions);
    for (const share of stats.correctPosition.slice(0, 4)) {
      expect(share).toBeGreaterThanOrEqual(PATTERN_BAR.positionMin);
      expect(share).toBeLessThanOrEqual(PATTERN_BAR.positionMax);
    }
    expect(stats.longestCorrectShare).toBeLessThanOrEqual(PATTERN_BAR.longestMax);
    const multiples = Object.values(stats.multipleCorrectCounts).reduce((a, b) => a + b, 0);
    for (const n of Object.values(stats.multipleCorrectCounts))
      expect(n / multiples).toBeLessThanOrEqual(PATTERN_BAR.correctCountMax);
    expect(stats.multipleCorrectCounts[1]).toBeGreaterThan(0);
    expect(stats.multipleCorrectCounts[4]).toBeGreaterThan(0);
  });

  test('answers cannot be guessed from cues: length, absolute words, select-all counts (issue #27)', () => {
    const report = measureCues(cueQuestions(deck.cards, labs.questions));
    expect(report.length.deck.singles).toBeGreaterThan(200);
    expect(Object.keys(report.length.byTopic)).toContain('labs');
    expect(cueProblems(report)).toEqual([]);
  });

  test('no lab debrief gives its answers away by length (strictly longest or shortest in at most a third)', () => {
    expect(labLengthProblems(labs.questions)).toEqual([]);
  });

  test('curated quizzes and the glossary point at questions and cards that exist', () => {
    const extras = loadExtras(process.cwd(), deck.cards);
    expect(extras.problems).toEqual([]);
    expect(extras.terms).toBeGreaterThan(0);
  });

  test('the corrected seed card never says a starved GPU reads high', () => {
    const card = deck.cards.find((c) => c.id === 'gpu-util')!;
    expect(card.body).toMatch(/low\*\* or sawtooth/);
    const starved = card.data.questions.find((q) => q.id === 'gpu-util-data-starved-signature')!;
    expect(starved.kind).toBe('single');
    if (starved.kind === 'single')
      expect(starved.options.find((o) => o.correct)!.text).toMatch(/^Low or sawtooth GPU-Util/);
  });
});

describe('the size of the deck', () => {
  test('the deck reaches ≥ 62 cards, ≥ 420 questions of three kinds, ≥ 70 scenario, ≥ 12 curated quizzes', () => {
    const { stats } = checkQuality(deck.cards, true, labs.questions);
    const extras = loadExtras(process.cwd(), deck.cards);
    expect(totalsProblems({ ...stats, curatedQuizzes: extras.quizzes.length })).toEqual([]);
  });
});

describe('quality helpers', () => {
  test('readingMinutes counts about 200 words a minute', () => {
    expect(readingMinutes('word '.repeat(800))).toBe(4);
  });
  test('promptSimilarity flags rewordings and passes different questions', () => {
    expect(
      promptSimilarity('What does GPU-Util measure on an H100?', 'On an H100, what does GPU-Util measure?'),
    ).toBeGreaterThan(0.8);
    expect(promptSimilarity('What does GPU-Util measure?', 'Why is pinned memory faster for copies?')).toBeLessThan(
      0.3,
    );
  });
});
