import { describe, expect, test } from 'vitest';
import {
  checkInput,
  FRESH_INPUT,
  quizReducer,
  quizScore,
  startQuiz,
  type QuizAction,
  type QuizState,
  type SavedQuiz,
} from '../../src/lib/quiz-session.ts';
import type { QuizQuestion } from '../../src/lib/quiz.ts';
import { multi, numeric, single } from './quiz-fixtures.ts';

const questions: QuizQuestion[] = [single, multi, numeric];
const ids = questions.map((q) => q.id);
const T0 = Date.parse('2026-03-29T10:00:00Z');

const run = (actions: QuizAction[], from: QuizState = startQuiz(T0)) => actions.reduce(quizReducer, from);
/** A state with input typed, ticked, refused and announced: everything FRESH_INPUT must clear. */
const dirty = (s: QuizState): QuizState =>
  run(
    [
      { type: 'toggle', key: 'a' },
      { type: 'type', text: '1x' },
      { type: 'refuse', error: 'Type a number, e.g. 42 or 0.35.' },
    ],
    { ...s, announce: 'Correct.' },
  );
const inputOf = ({ draft, numberText, inputError, announce }: QuizState) => ({
  draft,
  numberText,
  inputError,
  announce,
});

describe('quizReducer', () => {
  test('times an answer from when its question was shown and announces the result', () => {
    const s = run([
      { type: 'answer', question: single, response: { kind: 'single', choices: ['a'] }, at: T0 + 4000 },
      { type: 'next', at: T0 + 9000 },
      { type: 'answer', question: multi, response: { kind: 'multiple', choices: ['b', 'a'] }, at: T0 + 12_500 },
    ]);
    expect(s.answers.map((a) => [a.questionId, a.correct, a.timeMs, a.at])).toEqual([
      ['s', false, 4000, T0 + 4000],
      ['m', true, 3500, T0 + 12_500],
    ]);
    expect(s.announce).toBe('Correct.');
    expect(quizScore(s.answers)).toEqual({ correct: 1, durationMs: 7500 });
  });

  test('a second answer to the same question changes nothing', () => {
    const once = run([{ type: 'answer', question: single, response: { kind: 'single', choices: ['b'] }, at: T0 }]);
    const twice = quizReducer(once, {
      type: 'answer',
      question: single,
      response: { kind: 'single', choices: ['a'] },
      at: T0 + 1,
    });
    expect(twice).toBe(once);
  });

  test('toggling an option ticks it, toggling again unticks it', () => {
    expect(run([{ type: 'toggle', key: 'a' }]).draft).toEqual(['a']);
    expect(
      run([
        { type: 'toggle', key: 'a' },
        { type: 'toggle', key: 'c' },
        { type: 'toggle', key: 'a' },
      ]).draft,
    ).toEqual(['c']);
  });

  test('next, undo and retake all start the question on screen from the fresh input', () => {
    const answered = run([
      { type: 'answer', question: single, response: { kind: 'single', choices: ['b'] }, at: T0 + 1000 },
    ]);
    expect(inputOf(run([{ type: 'next', at: T0 + 2000 }], dirty(answered)))).toEqual(FRESH_INPUT);
    expect(inputOf(run([{ type: 'restart', at: T0 + 2000 }], dirty(answered)))).toEqual(FRESH_INPUT);
    const undone = run([{ type: 'undo', questionIds: ids, at: T0 + 2000 }], dirty(answered));
    expect(inputOf(undone)).toEqual({
      ...FRESH_INPUT,
      announce: 'Answer undone. It no longer counts; answer the question again.',
    });
  });

  test('undo takes back the last answer and asks its question again, timed afresh', () => {
    const s = run([
      { type: 'answer', question: single, response: { kind: 'single', choices: ['b'] }, at: T0 + 1000 },
      { type: 'next', at: T0 + 2000 },
      { type: 'answer', question: multi, response: { kind: 'multiple', choices: ['a'] }, at: T0 + 3000 },
      { type: 'next', at: T0 + 4000 },
      { type: 'undo', questionIds: ids, at: T0 + 5000 },
    ]);
    expect(s.index).toBe(1);
    expect(s.answers.map((a) => a.questionId)).toEqual(['s']);
    expect(s.shownAt).toBe(T0 + 5000);
    expect(run([{ type: 'undo', questionIds: ids, at: T0 }])).toEqual(startQuiz(T0));
  });

  test('a retake starts over with a new attempt (a new option order) and a new clock', () => {
    const s = run([
      { type: 'answer', question: single, response: { kind: 'single', choices: ['b'] }, at: T0 + 1000 },
      { type: 'next', at: T0 + 2000 },
      { type: 'restart', at: T0 + 60_000 },
    ]);
    expect(s).toEqual({ ...startQuiz(T0 + 60_000), attempt: 1 });
  });

  test('restoring a saved quiz keeps its attempt, place, answers and start', () => {
    const saved: SavedQuiz = {
      attempt: 2,
      index: 1,
      answers: [{ questionId: 's', response: { kind: 'single', choices: ['b'] }, correct: true, timeMs: 900 }],
      startedAt: T0 - 60_000,
    };
    const s = run([{ type: 'restore', saved }]);
    expect(s).toMatchObject({ attempt: 2, index: 1, startedAt: T0 - 60_000, shownAt: T0 });
    expect(s.answers).toHaveLength(1);
  });

  test('a saved quiz read back after the learner already answered changes nothing', () => {
    const saved: SavedQuiz = { attempt: 2, index: 5, answers: [], startedAt: T0 - 60_000 };
    const answered = run([
      { type: 'answer', question: single, response: { kind: 'single', choices: ['b'] }, at: T0 + 1000 },
    ]);
    expect(quizReducer(answered, { type: 'restore', saved })).toBe(answered);
  });
});

describe('checkInput', () => {
  test('reads a typed number as people type it, or says what to type', () => {
    expect(checkInput(numeric, { draft: [], numberText: '12 %' })).toEqual({
      response: { kind: 'numeric', value: 12 },
    });
    expect(checkInput(numeric, { draft: [], numberText: 'twelve' })).toEqual({
      error: 'Type a number, e.g. 42 or 0.35.',
    });
  });

  test('asks for at least one ticked option; a single choice has nothing to check', () => {
    expect(checkInput(multi, { draft: [], numberText: '' })).toEqual({ error: 'Select at least one option.' });
    expect(checkInput(multi, { draft: ['a', 'b'], numberText: '' })).toEqual({
      response: { kind: 'multiple', choices: ['a', 'b'] },
    });
    expect(checkInput(single, { draft: [], numberText: '' })).toBeNull();
  });
});
