/**
 * Property-based hostile input for the content schemas: whatever a card file's frontmatter holds,
 * parsing never throws, and anything accepted keeps the deck's invariants.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { CardSchema, type Card } from '../../src/schemas/card.ts';
import { CuratedQuizSchema, GlossaryTermSchema } from '../../src/schemas/quiz.ts';
import { goodCard } from '../fixtures/cards.ts';

/** The invariants every accepted card keeps. */
function assertInvariants(card: Card): void {
  expect(card.sources.length).toBeGreaterThanOrEqual(2);
  expect(card.questions.length).toBeGreaterThanOrEqual(4);
  for (const q of card.questions) {
    if (q.kind === 'numeric') {
      expect(q.tolerance).toBeGreaterThan(0);
      for (const m of q.mistakes) expect(Math.abs(m.value - q.answer)).toBeGreaterThan(q.tolerance);
      continue;
    }
    const correct = q.options.filter((o) => o.correct).length;
    if (q.kind === 'single') expect(correct).toBe(1);
    else expect(correct).toBeGreaterThan(0);
    for (const o of q.options) expect(o.why.length).toBeGreaterThanOrEqual(10);
  }
}

/**
 * Sets `value` at a path inside a deep copy of `base`, as an own property (a "__proto__" key becomes
 * an own key, as YAML would parse it, and never touches a prototype).
 */
function mutate(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === null || typeof next !== 'object') return copy;
    node = next as Record<string | number, unknown>;
  }
  Object.defineProperty(node, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const hostile = fc.oneof(
  fc.anything(),
  fc.string(),
  fc.constantFrom(
    '__proto__',
    'constructor',
    '<script>alert(1)</script>',
    '\u0000',
    'a'.repeat(10_000),
    '',
    -1,
    0,
    NaN,
    Infinity,
    null,
    true,
    [],
    {},
  ),
);
const key = fc.oneof(
  fc.constantFrom(
    'title',
    'hook',
    'topic',
    'level',
    'minutes',
    'sources',
    'related',
    'questions',
    'kind',
    'options',
    'correct',
    'why',
    'text',
    'answer',
    'tolerance',
    'mistakes',
    'id',
    '__proto__',
  ),
  fc.nat(5),
);

describe('CardSchema under hostile input (fast-check)', () => {
  test('arbitrary values never throw and are never accepted unless they are cards', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const r = CardSchema.safeParse(value);
        if (r.success) assertInvariants(r.data);
      }),
      { numRuns: 500, seed: 1130 },
    );
  });

  test('random edits of a good card are either rejected with messages or keep every invariant', () => {
    fc.assert(
      fc.property(fc.array(key, { minLength: 1, maxLength: 5 }), hostile, (path, value) => {
        const r = CardSchema.safeParse(mutate(goodCard(), path, value));
        if (r.success) assertInvariants(r.data);
        else for (const issue of r.error.issues) expect(issue.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000, seed: 2026 },
    );
  });

  test('quiz and glossary schemas never throw on arbitrary YAML-like input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const quiz = CuratedQuizSchema.safeParse(value);
        if (quiz.success) expect(new Set(quiz.data.questions).size).toBe(30);
        GlossaryTermSchema.safeParse(value);
      }),
      { numRuns: 500, seed: 1207 },
    );
  });
});
