/**
 * The size the deck must reach (issue #17, "Bar"): cards, questions of all three kinds, scenario
 * questions and curated practice quizzes. Pure. The content test and `npm run content:check` enforce it.
 */

/** Minimum totals of the finished deck. */
export const TOTALS_BAR = {
  cards: 62,
  questions: 420,
  scenario: 70,
  curatedQuizzes: 12,
  /** Every one of these question kinds must appear. */
  kinds: ['single', 'multiple', 'numeric'],
} as const;

/** What the deck holds today. */
export interface DeckTotals {
  cards: number;
  questions: number;
  byKind: Record<string, number>;
  scenario: number;
  curatedQuizzes: number;
}

/** One message per total below the bar, each saying how far off it is. */
export function totalsProblems(t: DeckTotals): string[] {
  const problems: string[] = [];
  const short = (what: string, have: number, need: number) =>
    have < need ? [`Deck: ${have} ${what}; the bar is at least ${need} (${need - have} more).`] : [];
  problems.push(...short('cards', t.cards, TOTALS_BAR.cards));
  problems.push(...short('questions', t.questions, TOTALS_BAR.questions));
  problems.push(...short('scenario questions', t.scenario, TOTALS_BAR.scenario));
  problems.push(...short('curated practice quizzes', t.curatedQuizzes, TOTALS_BAR.curatedQuizzes));
  for (const kind of TOTALS_BAR.kinds)
    if (!t.byKind[kind]) problems.push(`Deck: no ${kind} questions; the bar needs all three kinds.`);
  return problems;
}

/** One line for `content:check`, e.g. "totals bar: cards 45/62 · questions 305/420 · …". */
export function totalsLine(t: DeckTotals): string {
  const b = TOTALS_BAR;
  return `totals bar: cards ${t.cards}/${b.cards} · questions ${t.questions}/${b.questions} · scenario ${t.scenario}/${b.scenario} · curated quizzes ${t.curatedQuizzes}/${b.curatedQuizzes}`;
}
