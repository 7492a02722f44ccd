/**
 * Builds the offline search index with Pagefind after the site is built (and before the service
 * worker is generated, so the index is precached: list this integration before AstroPWA).
 * Indexes card and glossary pages, plus every question as its own record linking to its card.
 */
import type { AstroIntegration } from 'astro';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import * as pagefind from 'pagefind';
import type { QuizQuestion } from '../lib/quiz.ts';

/** Plain text of a small HTML fragment. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export default function search(): AstroIntegration {
  return {
    name: 'saturate-search',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const out = fileURLToPath(dir);
        const { index, errors } = await pagefind.createIndex({ forceLanguage: 'en' });
        if (!index) throw new Error(`Pagefind could not start: ${errors.join('; ')}`);
        const pages = await index.addDirectory({ path: out, glob: '{cards,glossary}/**/*.html' });
        const bank = JSON.parse(await readFile(join(out, 'bank.json'), 'utf8')) as QuizQuestion[];
        for (const q of bank) {
          const options = q.kind === 'numeric' ? '' : q.options.map((o) => text(o.html)).join(' · ');
          const prompt = text(q.promptHtml);
          await index.addCustomRecord({
            url: `/cards/${q.cardId}/#quiz`,
            content: `${prompt} ${options}`,
            language: 'en',
            meta: { title: `Question: ${prompt.length > 90 ? `${prompt.slice(0, 87)}…` : prompt}`, card: q.cardTitle },
            filters: { type: ['question'] },
          });
        }
        const written = await index.writeFiles({ outputPath: join(out, 'pagefind') });
        if (written.errors.length) throw new Error(`Pagefind could not write its index: ${written.errors.join('; ')}`);
        await pagefind.close();
        logger.info(`indexed ${pages.page_count} pages and ${bank.length} questions`);
      },
    },
  };
}
