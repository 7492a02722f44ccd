/**
 * Reads content/cards from disk without Astro (for the content test and `npm run content:check`),
 * parsing frontmatter the way Astro does (js-yaml) and validating it with the same schema.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, basename } from 'node:path';
import yaml from 'js-yaml';
import { CardSchema } from '../schemas/card.ts';
import { CuratedQuizSchema, GlossaryTermSchema } from '../schemas/quiz.ts';
import { QuestionSchema } from '../schemas/question.ts';
import type { DeckCard } from '../lib/content-quality.ts';
import type { SourcedQuestion } from '../lib/answer-patterns.ts';
import { checkDeck } from '../lib/deck-check.ts';

/** All Markdown files below a folder, sorted. */
export function markdownFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? markdownFiles(p) : name.endsWith('.md') ? [p] : [];
    })
    .sort();
}

/** Splits a Markdown file into frontmatter (parsed) and body. */
export function splitFrontmatter(text: string): { data: unknown; body: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?\r?\n)---\r?\n?/.exec(text);
  if (!m) return { data: {}, body: text };
  return { data: yaml.load(m[1]!), body: text.slice(m[0].length) };
}

/** Loads and validates every card; schema and cross-file problems come back as messages. */
export function loadDeck(root: string): { cards: DeckCard[]; problems: string[] } {
  const problems: string[] = [];
  const cards: DeckCard[] = [];
  const dir = join(root, 'content', 'cards');
  for (const path of markdownFiles(dir)) {
    const file = relative(root, path);
    let split: { data: unknown; body: string };
    try {
      split = splitFrontmatter(readFileSync(path, 'utf8'));
    } catch (e) {
      problems.push(`${file}: frontmatter is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    const { data, body } = split;
    const parsed = CardSchema.safeParse(data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${file}: ${issue.path.join('.') || '(frontmatter)'}: ${issue.message}`);
      continue;
    }
    cards.push({ id: basename(path, '.md'), file, body, data: parsed.data });
  }
  problems.push(
    ...checkDeck(
      cards.map((c) => ({
        id: c.id,
        file: c.file,
        body: c.body,
        related: c.data.related,
        questionIds: c.data.questions.map((q) => q.id),
        topic: c.data.topic,
      })),
    ),
  );
  return { cards, problems };
}

/**
 * The labs' debrief questions (content/labs/*.md), validated with the question schema only: the
 * answer-pattern bar counts them with the cards. The lab schema itself is checked by test/unit/checks.test.ts.
 */
export function loadLabDebriefs(root: string): { questions: SourcedQuestion[]; problems: string[] } {
  const dir = join(root, 'content', 'labs');
  const questions: SourcedQuestion[] = [];
  const problems: string[] = [];
  for (const path of existsSync(dir) ? markdownFiles(dir) : []) {
    const file = relative(root, path);
    const { data } = splitFrontmatter(readFileSync(path, 'utf8'));
    const debrief = (data as { debrief?: unknown } | null)?.debrief;
    if (!Array.isArray(debrief)) {
      problems.push(`${file}: needs a \`debrief:\` list of questions.`);
      continue;
    }
    debrief.forEach((raw, i) => {
      const parsed = QuestionSchema.safeParse(raw);
      if (parsed.success) questions.push({ file, question: parsed.data });
      else
        for (const is of parsed.error.issues)
          problems.push(`${file}: debrief[${i}].${is.path.join('.')}: ${is.message}`);
    });
  }
  return { questions, problems };
}

/** Validates content/quizzes/*.yaml and content/glossary.yaml against their schemas and the deck. */
export function loadExtras(
  root: string,
  cards: readonly DeckCard[],
): { quizzes: { id: string; questions: string[] }[]; terms: number; problems: string[] } {
  const problems: string[] = [];
  const questionIds = new Set(cards.flatMap((c) => c.data.questions.map((q) => q.id)));
  const cardIds = new Set(cards.map((c) => c.id));
  const quizzes: { id: string; questions: string[] }[] = [];
  const qdir = join(root, 'content', 'quizzes');
  for (const name of existsSync(qdir)
    ? readdirSync(qdir)
        .filter((n) => n.endsWith('.yaml'))
        .sort()
    : []) {
    const file = `content/quizzes/${name}`;
    const parsed = CuratedQuizSchema.safeParse(yaml.load(readFileSync(join(qdir, name), 'utf8')));
    if (!parsed.success) {
      for (const i of parsed.error.issues) problems.push(`${file}: ${i.path.join('.')}: ${i.message}`);
      continue;
    }
    parsed.data.questions.forEach((id, i) => {
      if (!questionIds.has(id)) problems.push(`${file}: questions[${i}] "${id}" is not defined in any card.`);
    });
    quizzes.push({ id: name.replace(/\.yaml$/, ''), questions: parsed.data.questions });
  }
  const gfile = join(root, 'content', 'glossary.yaml');
  const raw = existsSync(gfile) ? yaml.load(readFileSync(gfile, 'utf8')) : [];
  const list = Array.isArray(raw) ? raw : [];
  const seen = new Set<string>();
  list.forEach((entry: unknown, i) => {
    const parsed = GlossaryTermSchema.safeParse(entry);
    const id = (entry as { id?: unknown })?.id;
    if (typeof id !== 'string' || !id) problems.push(`content/glossary.yaml: [${i}] needs an \`id\`.`);
    else if (seen.has(id)) problems.push(`content/glossary.yaml: [${i}] id "${id}" is used twice.`);
    else seen.add(id);
    if (!parsed.success)
      for (const is of parsed.error.issues)
        problems.push(`content/glossary.yaml: [${i}].${is.path.join('.')}: ${is.message}`);
    else if (!cardIds.has(parsed.data.card))
      problems.push(
        `content/glossary.yaml: "${parsed.data.term}" links to card "${parsed.data.card}", which does not exist.`,
      );
  });
  return { quizzes, terms: list.length, problems };
}
