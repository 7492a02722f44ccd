import { z } from 'zod';
import { LEVELS, TOPIC_IDS } from './topics.ts';
import { SourceSchema } from './source.ts';
import { QuestionSchema } from './question.ts';

/** The sections every card body has, as `## ` headings in this order. */
export const CARD_SECTIONS = [
  'Why it exists',
  'The mental model',
  'How it works',
  'When to use it',
  'When not to use it',
  'One canonical example',
] as const;

/** Frontmatter of a card in content/cards/<topic>/<slug>.md. The id is the file's slug. */
export const CardSchema = z.object({
  /** The card's title, as a learner would search for it. */
  title: z.string().trim().min(3).max(90, 'Keep the title under 90 characters: it is a phone screen heading.'),
  /** One line that makes the reader care; shown under the title and in lists. */
  hook: z
    .string()
    .trim()
    .min(20, 'The hook needs at least a short sentence.')
    .max(200, 'The hook is one line: at most 200 characters.')
    .refine((h) => !h.includes('\n'), 'The hook is one line: remove line breaks.'),
  /** The topic id (see src/schemas/topics.ts). */
  topic: z.enum(TOPIC_IDS, { error: `\`topic\` must be one of: ${TOPIC_IDS.join(', ')}.` }),
  /** intro, core or advanced. */
  level: z.enum(LEVELS, { error: `\`level\` must be one of: ${LEVELS.join(', ')}.` }),
  /** Minutes to read, as a whole number. */
  minutes: z.number().int().min(1).max(15),
  /** At least two sources a reader can check. */
  sources: z
    .array(SourceSchema, { error: 'A card needs `sources`: at least 2 entries with title and url.' })
    .min(2, 'A card needs at least 2 sources (title + url) so a reader can check it.'),
  /** Ids (slugs) of related cards. Each must exist. */
  related: z.array(z.string()).default([]),
  /** The card's "Test yourself" quiz: at least 4 questions. */
  questions: z.array(QuestionSchema).min(4, 'A card needs at least 4 questions for its "Test yourself" quiz.'),
});
export type Card = z.output<typeof CardSchema>;
