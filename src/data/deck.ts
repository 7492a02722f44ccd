/**
 * The deck as pages use it, read once at build time from the content collection: cards in
 * curriculum order and every question in the browser's shape (Markdown already rendered).
 */
import { getCollection, type CollectionEntry } from 'astro:content';
import { LEVELS, TOPICS } from '../schemas/topics.ts';
import type { Question } from '../schemas/question.ts';
import { optionKey, type QuizQuestion } from '../lib/quiz.ts';
import { md, mdInline } from './markdown.ts';

export type CardEntry = CollectionEntry<'cards'>;

const topicRank = (t: string) => TOPICS.findIndex((x) => x.id === t);
const levelRank = (l: string) => (LEVELS as readonly string[]).indexOf(l);

/** All cards, in reading order: topic, then level, then title. */
export async function getCards(): Promise<CardEntry[]> {
  const cards = await getCollection('cards');
  return cards.sort(
    (a, b) =>
      topicRank(a.data.topic) - topicRank(b.data.topic) ||
      levelRank(a.data.level) - levelRank(b.data.level) ||
      a.data.title.localeCompare(b.data.title),
  );
}

/** One authored question in the browser's shape. */
export function toQuizQuestion(card: CardEntry, q: Question): QuizQuestion {
  const base = {
    id: q.id,
    cardId: card.id,
    cardTitle: card.data.title,
    topic: card.data.topic,
    level: q.level,
    scenario: q.scenario,
    promptHtml: md(q.prompt),
    source: q.source,
  };
  if (q.kind === 'numeric') {
    return {
      ...base,
      kind: 'numeric',
      answer: q.answer,
      tolerance: q.tolerance,
      unit: q.unit,
      explanationHtml: md(q.explanation),
      mistakes: q.mistakes.map((m) => ({ value: m.value, whyHtml: md(m.why) })),
    };
  }
  return {
    ...base,
    kind: q.kind,
    options: q.options.map((o, i) => ({
      key: optionKey(i),
      html: mdInline(o.text),
      whyHtml: md(o.why),
      correct: o.correct,
    })),
  };
}

/** A card's "Test yourself" questions. */
export function cardQuestions(card: CardEntry): QuizQuestion[] {
  return card.data.questions.map((q) => toQuizQuestion(card, q));
}

/** Every question in the deck. */
export async function getBank(): Promise<QuizQuestion[]> {
  return (await getCards()).flatMap(cardQuestions);
}

/** Curated practice quizzes in list order, with their questions resolved; throws naming the file for an unknown id. */
export async function getCuratedQuizzes(): Promise<
  { id: string; title: string; description: string; questions: QuizQuestion[] }[]
> {
  const bank = new Map((await getBank()).map((q) => [q.id, q]));
  const quizzes = await getCollection('quizzes');
  return quizzes
    .sort((a, b) => a.data.order - b.data.order || a.data.title.localeCompare(b.data.title))
    .map((quiz) => {
      const unknown = quiz.data.questions.filter((id) => !bank.has(id));
      if (unknown.length)
        throw new Error(
          `content/quizzes/${quiz.id}.yaml: questions ${unknown.map((u) => `"${u}"`).join(', ')} are not defined in any card. Use ids from content/cards or remove them.`,
        );
      return {
        id: quiz.id,
        title: quiz.data.title,
        description: quiz.data.description,
        questions: quiz.data.questions.map((id) => bank.get(id)!),
      };
    });
}

/** Glossary terms A–Z with their cards; throws for a term whose card does not exist. */
export async function getGlossary(): Promise<{ id: string; term: string; definition: string; card: CardEntry }[]> {
  const cards = new Map((await getCards()).map((c) => [c.id, c]));
  const terms = await getCollection('glossary');
  return terms
    .map((t) => {
      const card = cards.get(t.data.card);
      if (!card)
        throw new Error(
          `content/glossary.yaml: term "${t.data.term}" links to card "${t.data.card}", which does not exist. Use a card id from content/cards.`,
        );
      return { id: t.id, term: t.data.term, definition: t.data.definition, card };
    })
    .sort((a, b) => a.term.localeCompare(b.term, 'en', { sensitivity: 'base' }));
}
