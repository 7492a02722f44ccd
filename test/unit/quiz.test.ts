import { describe, expect, test } from 'vitest';
import { isCorrect, matchMistake, parseNumber, shuffledOptions } from '../../src/lib/quiz.ts';
import { multi, numeric, single } from './quiz-fixtures.ts';

describe('isCorrect', () => {
  test('single: only the correct option', () => {
    expect(isCorrect(single, { kind: 'single', choices: ['b'] })).toBe(true);
    expect(isCorrect(single, { kind: 'single', choices: ['a'] })).toBe(false);
  });
  test('multiple: every correct option and no wrong one', () => {
    expect(isCorrect(multi, { kind: 'multiple', choices: ['b', 'a'] })).toBe(true);
    expect(isCorrect(multi, { kind: 'multiple', choices: ['a'] })).toBe(false);
    expect(isCorrect(multi, { kind: 'multiple', choices: ['a', 'b', 'c'] })).toBe(false);
  });
  test('numeric: within tolerance, inclusive', () => {
    expect(isCorrect(numeric, { kind: 'numeric', value: 41 })).toBe(true);
    expect(isCorrect(numeric, { kind: 'numeric', value: 41.5 })).toBe(false);
    expect(isCorrect(numeric, { kind: 'numeric', value: Number.NaN })).toBe(false);
  });
  test('numeric: a known mistake is recognised', () => {
    expect(matchMistake(numeric, 20.5)?.whyHtml).toBe('sparse peak');
    expect(matchMistake(numeric, 30)).toBeUndefined();
  });
});

describe('parseNumber', () => {
  test.each([
    ['42', 42],
    [' 0.35 ', 0.35],
    ['1,234.5', 1234.5],
    ['1,234', 1234],
    ['0,25', 0.25],
    ['12.5 %', 12.5],
    ['3e9', 3e9],
    ['-7', -7],
    ['$2,160', 2160],
  ])('reads %s as %s', (input, value) => {
    expect(parseNumber(input.replace(/^\$/, ''))).toBe(value);
  });
  test.each(['', 'abc', '1.2.3', '--1', 'NaN'])('rejects %j', (input) => {
    expect(parseNumber(input)).toBeNull();
  });
});

describe('shuffledOptions', () => {
  test('is stable for a seed and keeps every option', () => {
    const a = shuffledOptions(single, 'x:0').map((o) => o.key);
    expect(shuffledOptions(single, 'x:0').map((o) => o.key)).toEqual(a);
    expect([...a].sort()).toEqual(['a', 'b', 'c']);
  });
  test('reshuffles across attempts for some seed', () => {
    const orders = new Set(
      Array.from({ length: 10 }, (_, i) =>
        shuffledOptions(single, `x:${i}`)
          .map((o) => o.key)
          .join(''),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});
