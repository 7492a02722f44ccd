/**
 * The deck's quality bar, beyond what the schema enforces: reading time, question counts,
 * balanced answer positions, no "longest option is right" tell, no near-duplicate prompts.
 * Pure; the content test and `npm run content:check` run it over content/.
 */
import type { Card } from '../schemas/card.ts';
import {
  answerPatternProblems,
  answerPatterns,
  labLengthProblems,
  PATTERN_BAR,
  type SourcedQuestion,
} from './answer-patterns.ts';

/** Words per minute used for reading time. */
export const READING_WPM = 200;

/** Reading minutes of a Markdown body (code blocks count: people read them too). */
export function readingMinutes(body: string): number {
  const words = body
    .replace(/[#*_`>|-]/g, ' ')
    .split(/\s+/)
    .filter(Boolean).length;
  return Math.max(1, Math.round(words / READING_WPM));
}

/** Lower-cased content words of a prompt, for similarity. */
function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .replace(/[^a-z0-9%. ]+/g, ' ')
      .split(/\s+/)
      .filter((w) => w.length > 2),
  );
}

/** Jaccard similarity of two prompts' word sets, 0–1. */
export function promptSimilarity(a: string, b: string): number {
  const A = words(a);
  const B = words(b);
  let inter = 0;
  for (const w of A) if (B.has(w)) inter++;
  const union = A.size + B.size - inter;
  return union === 0 ? 1 : inter / union;
}

export interface DeckCard {
  id: string;
  file: string;
  body: string;
  data: Card;
}

export interface QualityReport {
  problems: string[];
  stats: {
    cards: number;
    questions: number;
    byKind: Record<string, number>;
    byLevel: Record<string, number>;
    scenario: number;
    /** Share of single-choice questions (cards and lab debriefs) whose correct option sits at each position. */
    correctPosition: number[];
    /** Share of single-choice questions (cards and lab debriefs) whose correct option is the strictly longest. */
    longestCorrectShare: number;
    /** Multi-select questions (cards and lab debriefs) by their number of correct options. */
    multipleCorrectCounts: Record<number, number>;
  };
}

/** Thresholds of the quality bar (issue: "The deck"). */
export const BAR = {
  minQuestionsPerCard: 6,
  minMinutes: 3,
  maxMinutes: 6,
  positionMin: PATTERN_BAR.positionMin,
  positionMax: PATTERN_BAR.positionMax,
  longestMax: PATTERN_BAR.longestMax,
  similarityMax: 0.8,
} as const;

/**
 * Checks the whole deck against the bar; `strict` applies the deck-wide answer-pattern ratios
 * (needs a real bank). `debriefs` are the labs' debrief questions, which count for those ratios.
 */
export function checkQuality(
  cards: readonly DeckCard[],
  strict = true,
  debriefs: readonly SourcedQuestion[] = [],
): QualityReport {
  const problems: string[] = [];
  const byKind: Record<string, number> = {};
  const byLevel: Record<string, number> = {};
  let scenario = 0;
  const answered: SourcedQuestion[] = [...debriefs];
  const prompts: { id: string; file: string; prompt: string }[] = [];
  for (const c of cards) {
    const minutes = readingMinutes(c.body);
    if (minutes < BAR.minMinutes || minutes > BAR.maxMinutes)
      problems.push(
        `${c.file}: body reads in about ${minutes} min; aim for ${BAR.minMinutes}–${BAR.maxMinutes} (${BAR.minMinutes * READING_WPM}–${BAR.maxMinutes * READING_WPM + READING_WPM / 2 - 1} words).`,
      );
    if (Math.abs(minutes - c.data.minutes) > 1)
      problems.push(
        `${c.file}: frontmatter says ${c.data.minutes} min but the body reads in about ${minutes}. Set \`minutes: ${minutes}\`.`,
      );
    if (c.data.questions.length < BAR.minQuestionsPerCard)
      problems.push(
        `${c.file}: ${c.data.questions.length} questions; a card needs at least ${BAR.minQuestionsPerCard}.`,
      );
    for (const q of c.data.questions) {
      byKind[q.kind] = (byKind[q.kind] ?? 0) + 1;
      byLevel[q.level] = (byLevel[q.level] ?? 0) + 1;
      if (q.scenario) scenario++;
      prompts.push({ id: q.id, file: c.file, prompt: q.prompt });
      if (/<script|javascript:/i.test(q.prompt))
        problems.push(`${c.file}: question "${q.id}" has a script in its prompt. Remove it.`);
      answered.push({ file: c.file, question: q });
    }
  }
  for (let i = 0; i < prompts.length; i++) {
    for (let j = i + 1; j < prompts.length; j++) {
      const a = prompts[i]!;
      const b = prompts[j]!;
      if (promptSimilarity(a.prompt, b.prompt) > BAR.similarityMax)
        problems.push(
          `${b.file}: question "${b.id}" nearly duplicates "${a.id}" (${a.file}). Rewrite one so each asks something different.`,
        );
    }
  }
  const patterns = answerPatterns(answered);
  if (strict) problems.push(...answerPatternProblems(patterns));
  problems.push(...labLengthProblems(debriefs));
  return {
    problems,
    stats: {
      cards: cards.length,
      questions: prompts.length,
      byKind,
      byLevel,
      scenario,
      correctPosition: patterns.correctPosition,
      longestCorrectShare: patterns.longestCorrectShare,
      multipleCorrectCounts: patterns.correctCounts,
    },
  };
}
