import { describe, expect, test } from 'vitest';
import { drawPractice, PRACTICE_SIZE } from '../../src/lib/practice.ts';
import { hashSeed, parseSeed, shuffled } from '../../src/lib/random.ts';

const TOPICS = ['meters', 'training', 'useful-work', 'serving', 'tooling'];
const bank = TOPICS.flatMap((topic, t) =>
  Array.from({ length: 10 + t * 7 }, (_, i) => ({ id: `${topic}-${i}`, topic })),
);

describe('drawPractice', () => {
  test('is deterministic for a seed', () => {
    expect(drawPractice(bank, 'abc').map((q) => q.id)).toEqual(drawPractice(bank, 'abc').map((q) => q.id));
  });

  test('differs between seeds', () => {
    expect(drawPractice(bank, 'abc').map((q) => q.id)).not.toEqual(drawPractice(bank, 'abd').map((q) => q.id));
  });

  test('draws 30 questions and never repeats one', () => {
    for (const seed of ['a', 'b', 'c', 'seed-42', 'zzz']) {
      const ids = drawPractice(bank, seed).map((q) => q.id);
      expect(ids).toHaveLength(PRACTICE_SIZE);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  test('never repeats even when the bank lists a question twice', () => {
    const ids = drawPractice([...bank, ...bank], 'dup').map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('spreads over topics: every topic gets its even share', () => {
    const perTopic = PRACTICE_SIZE / TOPICS.length;
    const counts = new Map<string, number>();
    for (const q of drawPractice(bank, 'spread')) counts.set(q.topic, (counts.get(q.topic) ?? 0) + 1);
    for (const t of TOPICS) expect(counts.get(t)).toBe(perTopic);
  });

  test('tops up from bigger topics when a small topic runs out', () => {
    const lopsided = [...bank.filter((q) => q.topic !== 'meters'), { id: 'meters-only', topic: 'meters' }];
    const drawn = drawPractice(lopsided, 'top-up');
    expect(drawn).toHaveLength(PRACTICE_SIZE);
    expect(drawn.filter((q) => q.topic === 'meters')).toHaveLength(1);
  });

  test('returns the whole bank, shuffled, when it has fewer than 30 questions', () => {
    const small = bank.slice(0, 12);
    expect(
      drawPractice(small, 's')
        .map((q) => q.id)
        .sort(),
    ).toEqual(small.map((q) => q.id).sort());
  });
});

describe('seeds', () => {
  test('hashSeed is stable across runs', () => {
    expect(hashSeed('abc')).toBe(440920331);
  });
  test('shuffled keeps every item', () => {
    expect(shuffled([1, 2, 3, 4, 5], 'x').sort()).toEqual([1, 2, 3, 4, 5]);
  });
  test('parseSeed accepts URL-safe seeds only', () => {
    expect(parseSeed('k3x9q2')).toBe('k3x9q2');
    expect(parseSeed('<script>')).toBeNull();
    expect(parseSeed('a'.repeat(33))).toBeNull();
    expect(parseSeed(null)).toBeNull();
  });
});
