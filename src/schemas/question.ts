import { z } from 'zod';
import { LEVELS } from './topics.ts';
import { SourceSchema } from './source.ts';

/** Options whose meaning depends on the other options' positions; shuffling would break them. */
const POSITIONAL = /\b(all|none|both|neither) of the (above|below|options)\b|^\s*(a|b|c|d) and (a|b|c|d)\b/i;

/** One answer option of a choice question. */
export const OptionSchema = z.object({
  /** The option as the learner sees it (Markdown, inline). */
  text: z
    .string()
    .trim()
    .min(1, 'An option needs text.')
    .refine(
      (t) => !POSITIONAL.test(t),
      'Options are shuffled, so "all/none of the above" style options are not allowed: make each option stand alone.',
    ),
  /** Why this option is right or wrong (Markdown). Every option has one, right or wrong. */
  why: z
    .string({ error: 'Every option needs a `why`: explain why it is right or wrong.' })
    .trim()
    .min(10, 'Every option needs a `why` of at least a short sentence explaining why it is right or wrong.'),
  /** True for a correct option. Omit for wrong ones. */
  correct: z.boolean().default(false),
});
export type Option = z.output<typeof OptionSchema>;

const common = {
  /** Stable id, unique across the whole deck (kebab-case). Never change it: progress is keyed by it. */
  id: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Question ids are kebab-case, e.g. "gpu-util-definition".'),
  /** The question (Markdown: tables and code blocks allowed for metric readouts). */
  prompt: z.string().trim().min(10, 'A prompt needs at least a short sentence.'),
  /** How hard it is. */
  level: z.enum(LEVELS),
  /** Where the answer can be checked. */
  source: SourceSchema,
  /** True when the prompt shows a metrics readout (table or chart) and asks what is wrong. */
  scenario: z.boolean().default(false),
};

/** Exactly one correct option. */
export const SingleQuestionSchema = z
  .object({
    ...common,
    /** One correct answer, picked with a radio button. */
    kind: z.literal('single'),
    /** 2–6 options; exactly one has `correct: true`. */
    options: z
      .array(OptionSchema)
      .min(2, 'A question needs at least 2 options.')
      .max(6, 'At most 6 options: more is a reading test, not a quiz.'),
  })
  .refine((q) => q.options.filter((o) => o.correct).length === 1, {
    message: 'A `single` question needs exactly one option with `correct: true`. Mark one, or use kind `multiple`.',
    path: ['options'],
  });

/** One or more correct options ("select all that apply"). */
export const MultipleQuestionSchema = z
  .object({
    ...common,
    /** Select all that apply, with checkboxes. */
    kind: z.literal('multiple'),
    /** 3–6 options; at least one correct and at least one wrong. */
    options: z
      .array(OptionSchema)
      .min(3, 'A `multiple` question needs at least 3 options.')
      .max(6, 'At most 6 options.'),
  })
  .refine((q) => q.options.some((o) => o.correct) && q.options.some((o) => !o.correct), {
    message: 'A `multiple` question needs at least one correct and at least one wrong option.',
    path: ['options'],
  });

/** A known wrong numeric answer and why people reach it (e.g. used the sparse peak). */
export const NumericMistakeSchema = z.object({
  /** The wrong value a learner is likely to enter. */
  value: z.number(),
  /** Why that value is wrong (Markdown). */
  why: z.string().trim().min(10),
});

/** A number typed by the learner, accepted within a tolerance. */
export const NumericQuestionSchema = z
  .object({
    ...common,
    /** Type a number. */
    kind: z.literal('numeric'),
    /** The correct value. */
    answer: z.number({ error: 'A `numeric` question needs a numeric `answer`.' }),
    /** Accepted absolute distance from `answer` (same unit). */
    tolerance: z.number().positive('`tolerance` must be greater than 0.'),
    /** Unit shown beside the input, e.g. "%", "ms", "USD". */
    unit: z.string().trim().max(16).default(''),
    /** The worked solution (Markdown), shown after any answer. */
    explanation: z.string().trim().min(20, 'A `numeric` question needs an `explanation` with the worked solution.'),
    /** Likely wrong values with why each is wrong. */
    mistakes: z.array(NumericMistakeSchema).default([]),
  })
  .refine((q) => q.mistakes.every((m) => Math.abs(m.value - q.answer) > q.tolerance), {
    message:
      'A listed mistake lies within the tolerance of the answer, so it would be marked right. Tighten `tolerance` or fix the mistake value.',
    path: ['mistakes'],
  });

/** A quiz question; `kind` decides its shape. */
export const QuestionSchema = z.discriminatedUnion(
  'kind',
  [SingleQuestionSchema, MultipleQuestionSchema, NumericQuestionSchema],
  {
    error: 'A question needs `kind`: one of single, multiple or numeric.',
  },
);
export type Question = z.output<typeof QuestionSchema>;
export type QuestionKind = Question['kind'];
