/**
 * The deck's quality bar, beyond what the schema enforces: reading time, question counts,
 * balanced answer positions, no "longest option is right" tell, no near-duplicate prompts.
 * Pure; the content test and `npm run content:check` run it over content/.
 */
import type { Card } from '../schemas/card.ts';

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
    /** Share of single-choice questions whose correct option sits at each authored position. */
    correctPosition: number[];
    /** Share of choice questions whose correct option is the strictly longest. */
    longestCorrectShare: number;
  };
}

/** Thresholds of the quality bar (issue: "The deck"). */
export const BAR = {
  minQuestionsPerCard: 6,
  minMinutes: 3,
  maxMinutes: 6,
  positionMin: 0.15,
  positionMax: 0.35,
  longestMax: 0.4,
  similarityMax: 0.8,
} as const;

/** Checks the whole deck against the bar; `strict` applies the deck-wide ratios (needs a real bank). */
export function checkQuality(cards: readonly DeckCard[], strict = true): QualityReport {
  const problems: string[] = [];
  const byKind: Record<string, number> = {};
  const byLevel: Record<string, number> = {};
  const positions: number[] = [];
  let scenario = 0;
  let choice = 0;
  let longestCorrect = 0;
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
      if (q.kind === 'numeric') continue;
      choice++;
      const lengths = q.options.map((o) => o.text.length);
      const max = Math.max(...lengths);
      const longest = lengths.filter((l) => l === max).length === 1 ? lengths.indexOf(max) : -1;
      if (longest >= 0 && q.options[longest]!.correct && q.kind === 'single') longestCorrect++;
      if (q.kind === 'single') positions.push(q.options.findIndex((o) => o.correct));
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
  const singles = positions.length;
  const maxPos = Math.max(0, ...positions) + 1;
  const correctPosition = Array.from({ length: maxPos }, (_, p) =>
    singles ? positions.filter((x) => x === p).length / singles : 0,
  );
  const singleCount = byKind['single'] ?? 0;
  const longestCorrectShare = singleCount ? longestCorrect / singleCount : 0;
  if (strict) {
    correctPosition.slice(0, 4).forEach((share, p) => {
      if (share < BAR.positionMin || share > BAR.positionMax)
        problems.push(
          `Deck: the correct option is at position ${p + 1} in ${(share * 100).toFixed(0)}% of single-choice questions; keep each of positions 1–4 between ${BAR.positionMin * 100}% and ${BAR.positionMax * 100}%.`,
        );
    });
    if (longestCorrectShare > BAR.longestMax)
      problems.push(
        `Deck: the correct option is the longest in ${(longestCorrectShare * 100).toFixed(0)}% of single-choice questions (max ${BAR.longestMax * 100}%). Make wrong options as specific as right ones.`,
      );
  }
  void choice;
  return {
    problems,
    stats: {
      cards: cards.length,
      questions: prompts.length,
      byKind,
      byLevel,
      scenario,
      correctPosition,
      longestCorrectShare,
    },
  };
}
