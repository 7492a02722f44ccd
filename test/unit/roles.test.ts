import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { createEmptyCard, fsrs, Rating } from 'ts-fsrs';
import { checkRoles, drawRoleQuiz, isReady, readiness, readinessText } from '../../src/lib/roles.ts';
import { RoleSchema } from '../../src/schemas/role.ts';
import { loadDeck } from '../../src/data/load-deck-files.ts';

const NOW = Date.parse('2026-05-04T10:00:00Z');
const DAY = 86_400_000;

describe('readiness', () => {
  test('counts only questions on a review interval and not yet due', () => {
    const cards = new Map([
      ['due-later', { state: 2, due: new Date(NOW + 3 * DAY) }],
      ['overdue', { state: 2, due: new Date(NOW - DAY) }],
      ['learning', { state: 1, due: new Date(NOW + 600_000) }],
      ['relearning', { state: 3, due: new Date(NOW + 600_000) }],
    ]);
    const r = readiness(['due-later', 'overdue', 'learning', 'relearning', 'never'], cards, NOW);
    expect(r).toEqual({ ready: 1, answered: 4, total: 5, share: 0.2 });
  });

  test('a question answered right on three days in a row is ready; one answered wrong last is not', () => {
    const f = fsrs({ request_retention: 0.9, enable_fuzz: false });
    let good = createEmptyCard(NOW - 3 * DAY);
    for (let d = 3; d >= 1; d--) good = f.next(good, NOW - d * DAY, Rating.Good).card;
    const lapsed = f.next(good, NOW - 1000, Rating.Again).card;
    expect(isReady(good, NOW)).toBe(true);
    expect(isReady(lapsed, NOW)).toBe(false);
    expect(readiness(['q'], new Map([['q', good]]), NOW).share).toBe(1);
  });

  test('an empty role is 0%, and the text says when nothing is answered yet', () => {
    expect(readiness([], new Map(), NOW).share).toBe(0);
    expect(readinessText(readiness(['a', 'b'], new Map(), NOW))).toBe(
      'Readiness 0%: none of its 2 questions answered yet.',
    );
    expect(readinessText({ ready: 3, answered: 5, total: 60, share: 0.05 })).toBe(
      'Readiness 5%: 3 of 60 questions ready, 5 answered.',
    );
  });
});

describe('checkRoles', () => {
  const perCard = new Map([
    ['a', 20],
    ['b', 15],
  ]);
  test('names an unknown card, and the fix', () => {
    expect(checkRoles([{ id: 'r', cards: ['a', 'nope'] }], perCard)).toEqual([
      'content/roles.yaml: role "r" links "nope", which is not a card. Use card ids from content/cards (the file name without ".md").',
    ]);
  });
  test('refuses a role with fewer questions than its quiz needs, and a duplicate id', () => {
    expect(checkRoles([{ id: 'r', cards: ['b'] }], perCard)[0]).toContain(
      'has 15 questions in its cards; its quiz needs 30',
    );
    expect(
      checkRoles(
        [
          { id: 'r', cards: ['a', 'b'] },
          { id: 'r', cards: ['a', 'b'] },
        ],
        perCard,
      ),
    ).toEqual(['content/roles.yaml: role id "r" is used twice. Give each role its own id.']);
  });
});

describe('drawRoleQuiz', () => {
  const questions = ['a', 'b', 'c', 'd', 'e'].flatMap((card) =>
    Array.from({ length: 8 }, (_, i) => ({ id: `${card}-${i}`, cardId: card })),
  );
  test('draws 30 distinct questions spread evenly over the cards, the same for the same seed', () => {
    const quiz = drawRoleQuiz(questions, 'mlops');
    expect(quiz).toHaveLength(30);
    expect(new Set(quiz.map((q) => q.id)).size).toBe(30);
    const perCard = new Map<string, number>();
    for (const q of quiz) perCard.set(q.cardId, (perCard.get(q.cardId) ?? 0) + 1);
    expect([...perCard.values()]).toEqual([6, 6, 6, 6, 6]);
    expect(drawRoleQuiz(questions, 'mlops')).toEqual(quiz);
  });
});

describe('content/roles.yaml', () => {
  const roles = RoleSchema.array().parse(yaml.load(readFileSync('content/roles.yaml', 'utf8')));
  const { cards } = loadDeck('.');
  test('has at least 6 roles, each linking cards that exist with enough questions for a quiz', () => {
    expect(roles.length).toBeGreaterThanOrEqual(6);
    expect(checkRoles(roles, new Map(cards.map((c) => [c.id, c.data.questions.length])))).toEqual([]);
  });
  test('covers the roles learners prepare for', () => {
    expect(roles.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        'ml-infrastructure',
        'mlops',
        'inference-serving',
        'training-performance',
        'hpc-cluster',
        'ml-engineer',
      ]),
    );
  });
});
