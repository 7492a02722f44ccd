/**
 * Content collections. Cards live in content/cards/<topic>/<slug>.md; the card id is the slug.
 * The zod schema checks each file; `checkDeck` then checks what spans files (sections, related
 * ids, unique question ids) and fails the build with every problem, each naming its file.
 */
import { defineCollection } from 'astro:content';
import { file, glob } from 'astro/loaders';
import type { Loader } from 'astro/loaders';
import { CardSchema } from './schemas/card.ts';
import { CuratedQuizSchema, GlossaryTermSchema } from './schemas/quiz.ts';
import { checkDeck, type DeckEntry } from './lib/deck-check.ts';
import { LabSchema } from './schemas/lab.ts';
import { RoleSchema } from './schemas/role.ts';

const slugOf = (entry: string) => entry.replace(/\\/g, '/').split('/').pop()!.replace(/\.md$/, '');

/** glob(), then the cross-file checks on what it stored. */
function cardsLoader(): Loader {
  const inner = glob({
    pattern: '**/*.md',
    base: process.env['SATURATE_CONTENT_DIR'] ?? './content/cards',
    generateId: ({ entry }) => slugOf(entry),
  });
  return {
    name: 'saturate-cards',
    load: async (ctx) => {
      await inner.load(ctx);
      const entries: DeckEntry[] = ctx.store.values().map((e) => {
        const data = e.data as { related?: string[]; topic?: string; questions?: { id: string }[] };
        return {
          id: e.id,
          file: e.filePath ?? e.id,
          body: e.body ?? '',
          related: data.related ?? [],
          questionIds: (data.questions ?? []).map((q) => q.id),
          ...(data.topic ? { topic: data.topic } : {}),
        };
      });
      const problems = checkDeck(entries);
      if (problems.length > 0)
        throw new Error(`The deck has ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
    },
  };
}

const cards = defineCollection({ loader: cardsLoader(), schema: CardSchema });

/** Curated practice quizzes; their question ids are checked against the cards in src/data/deck.ts. */
const quizzes = defineCollection({
  loader: glob({ pattern: '*.yaml', base: './content/quizzes' }),
  schema: CuratedQuizSchema,
});

/** Glossary terms, each linking to the card that explains it (checked in src/data/deck.ts). */
const glossary = defineCollection({ loader: file('content/glossary.yaml'), schema: GlossaryTermSchema });

/** Hands-on labs in content/labs/<slug>.md; cross-file checks (cards, question ids) run in src/data/labs.ts. */
const labs = defineCollection({ loader: glob({ pattern: '*.md', base: './content/labs' }), schema: LabSchema });

/** Roles whose interviews cover GPU utilization; their cards are checked against the deck in src/data/roles.ts. */
const roles = defineCollection({ loader: file('content/roles.yaml'), schema: RoleSchema });

export const collections = { cards, quizzes, glossary, labs, roles };
