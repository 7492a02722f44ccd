/**
 * What a card list shows beside each card: read ✓, mastered, due for review. Pure; `nowMs` is passed in.
 *
 * Per card the store keeps a compact fact (`CardFact`), computed from the event log and the FSRS
 * schedule (src/lib/review.ts), cached in localStorage so a page without the store can still mark its
 * lists (src/client/card-marks.ts). A list item knows its card's question count (`data-questions`).
 *
 * "Mastered": every question of the card answered, and each one's FSRS memory stability is at least
 * `MASTERED_STABILITY_DAYS` (21: the point Anki calls a card "mature"), with none due now. A lapse
 * (a wrong answer) drops stability, so a card stops being mastered until it is relearned.
 */

/** FSRS stability (days) from which an answered question counts as mastered. */
export const MASTERED_STABILITY_DAYS = 21;

/** One card's progress facts. */
export interface CardFact {
  /** Read to the end at least once. */
  read?: true;
  /** Distinct questions of the card answered (undone answers not counted). */
  answered: number;
  /** The lowest FSRS stability (days) among its answered questions; 0 when none. */
  minStabilityDays: number;
  /** The earliest due time (epoch ms) among its answered questions; null when none. */
  dueAtMs: number | null;
}

/** The facts for every card with some progress, by card id. */
export type CardFacts = Record<string, CardFact>;

/** The schedule fields the facts need (a ts-fsrs Card has them). */
export interface ScheduledQuestion {
  card: { stability: number; due: Date };
}

/**
 * Facts per card from the answers that count (each carries its card id), the schedule by question id,
 * and the cards read.
 */
export function cardFacts(
  answers: readonly { questionId: string; cardId: string }[],
  schedule: ReadonlyMap<string, ScheduledQuestion>,
  readCardIds: Iterable<string>,
): CardFacts {
  const out: CardFacts = {};
  const fact = (id: string): CardFact => (out[id] ??= { answered: 0, minStabilityDays: 0, dueAtMs: null });
  const seen = new Set<string>();
  for (const a of answers) {
    if (seen.has(a.questionId)) continue;
    seen.add(a.questionId);
    const s = schedule.get(a.questionId);
    if (!s) continue;
    const f = fact(a.cardId);
    const dueMs = s.card.due.getTime();
    f.minStabilityDays = f.answered === 0 ? s.card.stability : Math.min(f.minStabilityDays, s.card.stability);
    f.dueAtMs = f.dueAtMs === null ? dueMs : Math.min(f.dueAtMs, dueMs);
    f.answered++;
  }
  for (const id of readCardIds) fact(id).read = true;
  return out;
}

/** The marks of one card, in the order they are shown. */
export type CardMark = 'read' | 'mastered' | 'due';

/** Which marks a card with `questionCount` questions gets at `nowMs`. */
export function marksFor(fact: CardFact | undefined, questionCount: number, nowMs: number): CardMark[] {
  if (!fact) return [];
  const marks: CardMark[] = [];
  if (fact.read) marks.push('read');
  const due = fact.dueAtMs !== null && fact.dueAtMs <= nowMs;
  if (!due && questionCount > 0 && fact.answered >= questionCount && fact.minStabilityDays >= MASTERED_STABILITY_DAYS)
    marks.push('mastered');
  if (due) marks.push('due');
  return marks;
}

/** A mark a list shows: a card's, or a lab's "completed" (the labs list). */
export type ListMark = CardMark | 'completed';

/** Each mark's words: read by screen readers and shown in its badge (its symbol comes from global.css). */
export const MARK_LABELS: Record<ListMark, string> = {
  read: 'Read',
  mastered: 'Mastered',
  due: 'Due for review',
  completed: 'Completed',
};

/**
 * The marks' HTML: their words once for screen readers, then a badge each, hidden from screen readers so nothing is
 * read twice. Words and a symbol, never colour alone.
 * @example marksHtml(['completed']) // '<span class="sr-only">Completed.</span><span class="mark" data-mark="completed" aria-hidden="true">Completed</span>'
 */
export function marksHtml(marks: readonly ListMark[]): string {
  if (!marks.length) return '';
  return (
    `<span class="sr-only">${marks.map((m) => MARK_LABELS[m]).join(', ')}.</span>` +
    marks.map((m) => `<span class="mark" data-mark="${m}" aria-hidden="true">${MARK_LABELS[m]}</span>`).join('')
  );
}
