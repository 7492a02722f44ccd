import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { createEmptyCard, fsrs, Rating } from 'ts-fsrs';
import { checkRoles, drawRoleQuiz, latestAnswers, readiness, readinessText } from '../../src/lib/roles.ts';
import { RoleSchema } from '../../src/schemas/role.ts';
import { loadDeck } from '../../src/data/load-deck-files.ts';

const NOW = Date.parse('2026-05-04T10:00:00Z');
const DAY = 86_400_000;

describe('readiness', () => {
  test('moves the day the learner answers well: a first right answer counts at once', () => {
    // Before: only FSRS review-state questions counted, so 37 answers read 1–5%. A right answer to a new
    // question leaves it in FSRS learning, and it counts now all the same.
    const f = fsrs({ request_retention: 0.9, enable_fuzz: false });
    const fresh = f.next(createEmptyCard(NOW - 60_000), NOW - 60_000, Rating.Good).card;
    const cards = new Map([['q1', fresh]]);
    const r = readiness(['q1', 'q2'], latestAnswers([{ questionId: 'q1', correct: true }]), cards, NOW);
    expect(r).toMatchObject({ ready: 1, answered: 1, total: 2, share: 0.5 });
  });

  test('a wrong latest answer takes a question off until it is right again', () => {
    const latest = latestAnswers([
      { questionId: 'a', correct: true },
      { questionId: 'b', correct: true },
      { questionId: 'a', correct: false },
      { questionId: 'b', correct: false },
      { questionId: 'b', correct: true },
    ]);
    expect(readiness(['a', 'b', 'c'], latest, new Map(), NOW)).toMatchObject({ ready: 1, answered: 2, total: 3 });
  });

  test('ready questions whose review has come are named apart, and still count', () => {
    const cards = new Map([
      ['due', { state: 2, due: new Date(NOW - DAY) }],
      ['later', { state: 2, due: new Date(NOW + 3 * DAY) }],
      ['learning', { state: 1, due: new Date(NOW - DAY) }],
    ]);
    const latest = new Map([
      ['due', true],
      ['later', true],
      ['learning', true],
    ]);
    const r = readiness(['due', 'later', 'learning', 'x'], latest, cards, NOW);
    expect(r).toEqual({ ready: 3, answered: 3, total: 4, share: 0.75, dueToKeep: 1 });
    expect(readinessText(r)).toBe(
      'Readiness 75%: your latest answer is right on 3 of its 4 questions (3 answered). Each question you get right counts at once; one you get wrong counts again once you get it right. 1 of them is due for review now.',
    );
  });

  test('an empty role is 0%, and the text says when nothing is answered yet and how it grows', () => {
    expect(readiness([], new Map(), new Map(), NOW).share).toBe(0);
    expect(readinessText(readiness(['a', 'b'], new Map(), new Map(), NOW))).toBe(
      'Readiness 0%: none of its 2 questions answered yet. Each question you get right counts at once; one you get wrong counts again once you get it right.',
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
