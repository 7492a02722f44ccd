import { z } from 'zod';

const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A role whose interviews cover GPU utilization: one entry of content/roles.yaml. */
export const RoleSchema = z.object({
  /** Kebab-case id, used in URLs: /roles/<id>/quiz/. */
  id: z.string().regex(kebab, 'Role ids are kebab-case, e.g. "ml-infrastructure".'),
  /** The role as job ads name it, e.g. "ML infrastructure engineer". */
  title: z.string().trim().min(3).max(60),
  /** Two or three sentences: what the job is and what its interviews ask about GPUs. */
  description: z.string().trim().min(60).max(420),
  /** Order on /roles/ (lower first). */
  order: z.number().int().default(100),
  /**
   * The cards whose topics its interviews cover, most asked first. Each must exist in content/cards
   * (the build fails otherwise); together they must hold at least 30 questions for the role quiz.
   */
  cards: z
    .array(z.string().regex(kebab, 'Card ids are kebab-case file names from content/cards, without ".md".'))
    .min(5, 'A role lists at least 5 cards.')
    .max(20, 'A role lists at most 20 cards: keep the ones its interviews really ask about.')
    .refine((ids) => new Set(ids).size === ids.length, 'A card is listed twice: list each card once per role.'),
});
export type Role = z.output<typeof RoleSchema>;
