import { describe, expect, test } from 'vitest';
import { loadDeck, loadExtras } from '../../src/data/load-deck-files.ts';
import { checkQuality, promptSimilarity, readingMinutes } from '../../src/lib/content-quality.ts';

const deck = loadDeck(process.cwd());

describe('the deck in content/', () => {
  test('every card passes the schema and the cross-file checks', () => {
    expect(deck.problems).toEqual([]);
    expect(deck.cards.length).toBeGreaterThan(0);
  });

  test('meets the quality bar: reading time, question counts, balanced answers, no near-duplicates', () => {
    const report = checkQuality(deck.cards);
    console.log(
      `deck: ${report.stats.cards} cards, ${report.stats.questions} questions, by kind ${JSON.stringify(report.stats.byKind)}, scenario ${report.stats.scenario}`,
    );
    expect(report.problems).toEqual([]);
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
