import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { isValidAnswerFast } from '../../src/schemas/parse-event.ts';
import { AnswerEventSchema, ProgressEventSchema } from '../../src/schemas/progress-event.ts';
import { parseEvent } from '../../src/schemas/parse-event.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const valid = makeAnswerEvents(1)[0]!;
/** Values that sit on and around every rule of the answer schema. */
const edgy = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    NaN,
    Infinity,
    -1,
    0,
    1.5,
    840,
    841,
    -841,
    8.64e7,
    8.64e7 + 1,
    8.64e15,
    8.64e15 + 2,
    '',
    'a',
    'A/b',
    '-a',
    'a b',
    'x'.repeat(200),
    'x'.repeat(201),
  ),
  fc.constantFrom(
    'UTC+05:30',
    'UTC+5:30',
    'Europe/Berlin',
    'Europe/',
    'z'.repeat(65),
    'card',
    'review',
    'nope',
    'single',
    'multiple',
    'numeric',
    'Single',
  ),
  fc.constantFrom(
    ['a'],
    [],
    ['a', 'b'],
    ['abcdefghi'],
    ['\u0007'],
    [1],
    Array(17).fill('a'),
    { 0: 'a', length: 1 },
    true,
    false,
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
);
const keys = [
  'id',
  'at',
  'tz',
  'offsetMin',
  'type',
  'questionId',
  'cardId',
  'topic',
  'choice',
  'correct',
  'timeMs',
  'context',
  'kind',
  'extra',
  '__proto__',
] as const;

describe('isValidAnswerFast', () => {
  test('accepts well-formed answers (so the fast path is taken)', () => {
    for (const e of makeAnswerEvents(200)) expect(isValidAnswerFast(e)).toBe(true);
    expect(isValidAnswerFast({ ...valid, choice: 42.5, kind: 'numeric' })).toBe(true);
  });

  test('property: never accepts a record the zod schema refuses', () => {
    const mutated = fc.record({
      edits: fc.array(fc.tuple(fc.constantFrom(...keys), edgy), { minLength: 1, maxLength: 4 }),
      drop: fc.option(fc.constantFrom(...keys)),
    });
    fc.assert(
      fc.property(mutated, ({ edits, drop }) => {
        const e: Record<string, unknown> = { ...valid };
        for (const [k, v] of edits)
          Object.defineProperty(e, k, { value: v, enumerable: true, configurable: true, writable: true });
        if (drop) delete e[drop];
        if (isValidAnswerFast(e)) expect(ProgressEventSchema.safeParse(e).success).toBe(true);
      }),
      { numRuns: 5_000, seed: 4403 },
    );
  });

  test('agrees with the schema on ids that do not start with their time', () => {
    const e = { ...valid, id: `1${valid.id}` };
    expect(isValidAnswerFast(e)).toBe(false);
    expect(ProgressEventSchema.safeParse(e).success).toBe(false);
    expect(AnswerEventSchema.safeParse(e).success).toBe(true); // only the union's rule catches it
  });
});

describe('parseEvent', () => {
  test('gives the schema its say on anything the fast path refuses', () => {
    const r = parseEvent({ ...valid, offsetMin: 841 });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0]!.path).toEqual(['offsetMin']);
    expect(
      parseEvent({ id: '5-abcd', at: 5, tz: 'UTC', offsetMin: 0, type: 'card-read', cardId: 'c', topic: 't' }).success,
    ).toBe(true);
  });
});

describe('parseEvent with implausible times (issue #20: answers are facts, times are hints)', () => {
  test('an answer 25 h after its question appeared is kept, its time clamped to a day and flagged', () => {
    const r = parseEvent({ ...valid, timeMs: 25 * 3_600_000 });
    expect(r).toMatchObject({ success: true, data: { id: valid.id, timeMs: 86_400_000, timeClamped: true } });
  });

  test('an answer after the clock went back 4 minutes is kept with time 0, flagged', () => {
    const r = parseEvent({ ...valid, timeMs: -240_000 });
    expect(r).toMatchObject({ success: true, data: { timeMs: 0, timeClamped: true } });
  });

  test('a quiz or lab with an implausible duration is kept, flagged', () => {
    const quiz = { id: '5-abcd', at: 5, tz: 'UTC', offsetMin: 0, type: 'quiz-done', context: 'card', quizId: 'c' };
    expect(parseEvent({ ...quiz, total: 3, correct: 2, durationMs: -1 })).toMatchObject({
      success: true,
      data: { durationMs: 0, durationClamped: true },
    });
  });

  test('a plausible time is not flagged, and the flag cannot be anything but true', () => {
    expect(parseEvent({ ...valid, timeMs: 86_400_000 })).toMatchObject({ success: true, data: { timeMs: 86_400_000 } });
    expect('timeClamped' in (parseEvent(valid) as { data: object }).data).toBe(false);
    expect(parseEvent({ ...valid, timeClamped: false }).success).toBe(false);
    expect(isValidAnswerFast({ ...valid, timeMs: 0, timeClamped: true })).toBe(true);
  });
});
