/**
 * A quiz in progress as pure state: which question is on screen, the answers given, and what the
 * learner is typing or ticking for the current question. `quizReducer` is the only way it changes
 * (the Quiz island runs it with `useReducer`); events and storage stay in the island. Pure: the
 * clock is passed in with each action (`at`, epoch ms).
 *
 * Every move to another question (next, undo, retake) starts from `FRESH_INPUT`, so no draft,
 * typed number, error or announcement is carried over to a question it was not about.
 */
import { isCorrect, parseNumber, type QuizQuestion, type QuizResponse } from './quiz.ts';

/** One answered question, as the quiz keeps it (and saves it for a reload). */
export interface Answer {
  questionId: string;
  response: QuizResponse;
  correct: boolean;
  timeMs: number;
  /** When it was answered (epoch ms), as the 'saturate:answer' event said; absent in state saved by older versions. */
  at?: number | undefined;
}

/** What survives a reload, a new tab or a closed app (kept on the device: src/store/quiz-saves.ts). */
export interface SavedQuiz {
  attempt: number;
  index: number;
  answers: Answer[];
  startedAt: number;
}

/** The learner's input for the question on screen, and the live region's words about it. */
export interface QuizInput {
  /** Ticked options of a multiple-choice question, before "Check answer". */
  draft: string[];
  /** What is typed in a numeric question's box. */
  numberText: string;
  /** Why "Check" did not accept the input ('' when it did or was not pressed). */
  inputError: string;
  /** What the polite live region says ('' for nothing). */
  announce: string;
}

/** The input a question starts with: the one value every move to another question resets to. */
export const FRESH_INPUT: Readonly<QuizInput> = Object.freeze({
  draft: [],
  numberText: '',
  inputError: '',
  announce: '',
});

/** A quiz in progress. */
export interface QuizState extends SavedQuiz, QuizInput {
  /** When the question on screen was shown (epoch ms): an answer's `timeMs` counts from here. */
  shownAt: number;
}

/** Everything that changes a quiz. `at`: the clock now, epoch ms. */
export type QuizAction =
  | { type: 'restore'; saved: SavedQuiz }
  | { type: 'answer'; question: QuizQuestion; response: QuizResponse; at: number }
  | { type: 'toggle'; key: string }
  | { type: 'type'; text: string }
  | { type: 'refuse'; error: string }
  | { type: 'next'; at: number }
  | { type: 'undo'; questionIds: readonly string[]; at: number }
  | { type: 'restart'; at: number };

/** A quiz not started yet, its first question shown at `at`. */
export function startQuiz(at: number): QuizState {
  return { attempt: 0, index: 0, answers: [], startedAt: at, shownAt: at, ...FRESH_INPUT };
}

/** The answer a response to `question` makes, timed from when the question was shown. */
export function answerOf(question: QuizQuestion, response: QuizResponse, shownAt: number, at: number): Answer {
  return { questionId: question.id, response, correct: isCorrect(question, response), timeMs: at - shownAt, at };
}

/**
 * The next state. An answer to a question already answered, or when none is on screen, changes
 * nothing (the same object is returned, so React skips the render).
 */
export function quizReducer(s: QuizState, a: QuizAction): QuizState {
  switch (a.type) {
    case 'restore': {
      // Read back after the quiz opened: an answer given meanwhile wins (it was already recorded).
      if (s.answers.length > 0 || s.index > 0) return s;
      const { attempt, index, answers, startedAt } = a.saved;
      return { ...s, attempt, index, answers, startedAt };
    }
    case 'answer': {
      if (s.answers.some((x) => x.questionId === a.question.id)) return s;
      const answer = answerOf(a.question, a.response, s.shownAt, a.at);
      const announce = answer.correct ? 'Correct.' : 'Not quite.';
      return { ...s, answers: [...s.answers, answer], inputError: '', announce };
    }
    case 'toggle':
      return { ...s, draft: s.draft.includes(a.key) ? s.draft.filter((k) => k !== a.key) : [...s.draft, a.key] };
    case 'type':
      return { ...s, numberText: a.text };
    case 'refuse':
      return { ...s, inputError: a.error };
    case 'next':
      return { ...s, ...FRESH_INPUT, index: s.index + 1, shownAt: a.at };
    case 'undo': {
      const last = s.answers.at(-1);
      if (!last) return s;
      return {
        ...s,
        ...FRESH_INPUT,
        answers: s.answers.slice(0, -1),
        index: Math.max(0, a.questionIds.indexOf(last.questionId)),
        shownAt: a.at,
        announce: 'Answer undone. It no longer counts; answer the question again.',
      };
    }
    case 'restart':
      return { ...s, ...FRESH_INPUT, attempt: s.attempt + 1, index: 0, answers: [], startedAt: a.at, shownAt: a.at };
  }
}

/**
 * The response the current input gives to `question` on "Check", or why it gives none; null for a
 * single-choice question (picking an option answers it: there is nothing to check).
 * @example checkInput(numeric, { draft: [], numberText: '12 %' }) // { response: { kind: 'numeric', value: 12 } }
 */
export function checkInput(
  question: QuizQuestion,
  input: Pick<QuizInput, 'draft' | 'numberText'>,
): { response: QuizResponse } | { error: string } | null {
  if (question.kind === 'numeric') {
    const value = parseNumber(input.numberText);
    return value === null ? { error: 'Type a number, e.g. 42 or 0.35.' } : { response: { kind: 'numeric', value } };
  }
  if (question.kind === 'multiple')
    return input.draft.length === 0
      ? { error: 'Select at least one option.' }
      : { response: { kind: 'multiple', choices: input.draft } };
  return null;
}

/** Right answers and the time spent answering (ms), as the summary and the 'saturate:quiz-done' event give them. */
export function quizScore(answers: readonly Answer[]): { correct: number; durationMs: number } {
  return {
    correct: answers.filter((a) => a.correct).length,
    durationMs: answers.reduce((t, a) => t + a.timeMs, 0),
  };
}

/** Right answers out of the questions asked, for one topic. */
export interface TopicScore {
  topic: string;
  correct: number;
  total: number;
}

/**
 * The score per topic, topics in the order the quiz first asked them.
 * @example topicBreakdown([{ id: 'a', topic: 'meters' }], [{ questionId: 'a', correct: true }]) // [{ topic: 'meters', correct: 1, total: 1 }]
 */
export function topicBreakdown(
  questions: readonly { id: string; topic: string }[],
  answers: readonly { questionId: string; correct: boolean }[],
): TopicScore[] {
  const right = new Set(answers.filter((a) => a.correct).map((a) => a.questionId));
  const byTopic = new Map<string, TopicScore>();
  for (const q of questions) {
    const t = byTopic.get(q.topic) ?? { topic: q.topic, correct: 0, total: 0 };
    t.total++;
    if (right.has(q.id)) t.correct++;
    byTopic.set(q.topic, t);
  }
  return [...byTopic.values()];
}
