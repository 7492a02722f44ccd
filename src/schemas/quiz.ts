import { z } from 'zod';
import { PRACTICE_SIZE } from '../lib/practice.ts';

/** A curated practice quiz: content/quizzes/<id>.yaml. Its questions come from the cards by id. */
export const CuratedQuizSchema = z.object({
  /** Name shown in the list, e.g. "Why is my training slow?". */
  title: z.string().trim().min(3).max(80),
  /** One sentence: who it is for and what it covers. */
  description: z.string().trim().min(20).max(240),
  /** Order in the list of quizzes (lower first). */
  order: z.number().int().default(100),
  /** Exactly 30 question ids, each defined in some card, none twice. */
  questions: z
    .array(z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Question ids are kebab-case.'))
    .length(PRACTICE_SIZE, `A practice quiz has exactly ${PRACTICE_SIZE} questions.`)
    .refine(
      (ids) => new Set(ids).size === ids.length,
      'A question is listed twice: each question appears once per quiz.',
    ),
});
export type CuratedQuiz = z.output<typeof CuratedQuizSchema>;

/** One glossary term: content/glossary.yaml. */
export const GlossaryTermSchema = z.object({
  /** The term as people write it, e.g. "GPU-Util". */
  term: z.string().trim().min(2).max(60),
  /** One sentence. */
  definition: z
    .string()
    .trim()
    .min(20)
    .max(300)
    .refine((d) => (d.match(/[.!?](\s|$)/g) ?? []).length <= 2, 'A glossary definition is one sentence (two at most).'),
  /** The id of the card that explains it. */
  card: z.string(),
});
export type GlossaryTerm = z.output<typeof GlossaryTermSchema>;
