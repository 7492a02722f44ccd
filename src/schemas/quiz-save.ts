/**
 * A quiz in progress as saved on the device (src/store/quiz-saves.ts): enough to put the learner
 * back at the question they were on, in a new tab or after the app was closed, and for the home
 * page to offer "Resume practice quiz: 14/30". One record per quiz id; removed when the quiz ends.
 *
 * Validated on every read: a record that fails is dropped (it is a convenience, not progress: the
 * answers themselves are in the event log), and nothing else is touched.
 * Uses `zod/mini`, as the event log's schemas do (src/schemas/progress-event.ts).
 */
import * as z from 'zod/mini';
import { CONTEXTS, REF_PATTERN } from './progress-event.ts';

/** The version of this record's shape; a record of another version is not read. */
export const QUIZ_SAVE_VERSION = 1;

const ref = z.string().check(z.regex(REF_PATTERN, 'Ids are 1–200 letters, digits and . _ : / -.'));
const count = z.number().check(z.refine((n) => Number.isInteger(n) && n >= 0 && n <= 10_000, 'a whole number'));
const epochMs = z.number().check(z.refine((n) => Number.isInteger(n) && n >= 0 && n <= 8.64e15, 'an epoch ms'));

/** One answer given in the quiz (as src/lib/quiz-session.ts keeps it). */
export const SavedAnswerSchema = z.object({
  questionId: ref,
  response: z.union([
    z.object({ kind: z.literal('single'), choices: z.array(z.string().check(z.maxLength(8))).check(z.maxLength(16)) }),
    z.object({
      kind: z.literal('multiple'),
      choices: z.array(z.string().check(z.maxLength(8))).check(z.maxLength(16)),
    }),
    z.object({ kind: z.literal('numeric'), value: z.number() }),
  ]),
  correct: z.boolean(),
  timeMs: z.number().check(z.refine((n) => n >= 0 && n <= 86_400_000, 'a duration up to a day')),
  at: z.optional(epochMs),
});

/** A quiz in progress. */
export const QuizSaveSchema = z
  .object({
    v: z.literal(QUIZ_SAVE_VERSION),
    /** The quiz's id: a card id, "practice:<seed>", "quiz:<curated id>", "review" or "retake". */
    quizId: ref,
    /** What the home page calls it ("Practice quiz", a curated quiz's title, a card's title). */
    title: z.string().check(z.minLength(1), z.maxLength(120)),
    /** Where to resume it: a site path (without the base), e.g. "/practice/random/?seed=abc123". */
    href: z.string().check(z.regex(/^\/[^\s]{0,500}$/, 'a site path starting with /')),
    context: z.enum(CONTEXTS),
    /** The quiz's questions in order: a quiz whose questions changed since starts again. */
    questionIds: z.array(ref).check(z.minLength(1), z.maxLength(1000)),
    attempt: count,
    /** The question on screen (0-based); below `questionIds.length`, as a finished quiz is not kept. */
    index: count,
    answers: z.array(SavedAnswerSchema).check(z.maxLength(1000)),
    startedAt: epochMs,
    /** When it was last saved (epoch ms): the home page offers the newest. */
    savedAt: epochMs,
  })
  .check(
    z.refine((s) => s.index < s.questionIds.length, 'index must be a question of the quiz'),
    z.refine((s) => {
      const ids = new Set(s.questionIds);
      return s.answers.every((a) => ids.has(a.questionId));
    }, 'every answer must be to a question of the quiz'),
  );
export type QuizSave = z.output<typeof QuizSaveSchema>;

/** A saved quiz read back, or null with why it cannot be used. */
export function parseQuizSave(value: unknown): { ok: true; save: QuizSave } | { ok: false; reason: string } {
  const r = QuizSaveSchema.safeParse(value);
  if (r.success) return { ok: true, save: r.data };
  return { ok: false, reason: r.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ') };
}
