/**
 * Roles whose interviews cover GPU utilization (content/roles.yaml): the checks that span files,
 * the role quiz's draw and the learner's readiness. Pure: the schedule and `now` are passed in.
 */
import { drawPractice, PRACTICE_SIZE } from './practice.ts';

/** FSRS `State.Review` (ts-fsrs): the question left its learning steps and is on a spaced interval. */
export const FSRS_REVIEW_STATE = 2;

/** What readiness looks at in a question's FSRS card (a ts-fsrs `Card`). */
export interface MemoryState {
  state: number;
  due: Date;
}

/** A role's readiness: how many of its questions the learner is likely to recall today. */
export interface Readiness {
  /** Questions in a good state: on a review interval (FSRS state Review) and not yet due. */
  ready: number;
  /** Questions answered at least once. */
  answered: number;
  /** Every question of the role's cards. */
  total: number;
  /** ready / total, 0–1 (0 for a role without questions). */
  share: number;
}

/**
 * Whether a question is in a good FSRS state at `now`: in the Review state (not new, learning or
 * relearning after a lapse) and not due yet. FSRS schedules the due date where predicted recall
 * falls to the requested retention (0.9 in src/lib/review.ts), so "not due" means at least 90% recall.
 * @example isReady({ state: 2, due: new Date('2026-05-10') }, Date.parse('2026-05-04')) // true
 */
export function isReady(card: MemoryState | undefined, now: number): boolean {
  return card !== undefined && card.state === FSRS_REVIEW_STATE && card.due.getTime() > now;
}

/**
 * Readiness for a role with these question ids, from the schedule's FSRS cards at `now`.
 * @example readiness(['a', 'b'], new Map([['a', { state: 2, due: later }]]), now) // { ready: 1, answered: 1, total: 2, share: 0.5 }
 */
export function readiness(
  questionIds: readonly string[],
  cards: ReadonlyMap<string, MemoryState>,
  now: number,
): Readiness {
  let ready = 0;
  let answered = 0;
  for (const id of questionIds) {
    const card = cards.get(id);
    if (card) answered += 1;
    if (isReady(card, now)) ready += 1;
  }
  const total = questionIds.length;
  return { ready, answered, total, share: total === 0 ? 0 : ready / total };
}

/** What the cross-file check needs of a role. */
export interface RoleRef {
  id: string;
  cards: readonly string[];
}

/**
 * Problems with roles against the deck: unknown cards, duplicate role ids, and roles whose cards
 * hold fewer questions than a role quiz needs. Each message names content/roles.yaml and the fix.
 */
export function checkRoles(
  roles: readonly RoleRef[],
  questionsPerCard: ReadonlyMap<string, number>,
  size = PRACTICE_SIZE,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const role of roles) {
    if (seen.has(role.id))
      problems.push(`content/roles.yaml: role id "${role.id}" is used twice. Give each role its own id.`);
    seen.add(role.id);
    const unknown = role.cards.filter((c) => !questionsPerCard.has(c));
    if (unknown.length)
      problems.push(
        `content/roles.yaml: role "${role.id}" links ${unknown.map((u) => `"${u}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a card' : 'are not cards'}. Use card ids from content/cards (the file name without ".md").`,
      );
    const questions = role.cards.reduce((n, c) => n + (questionsPerCard.get(c) ?? 0), 0);
    if (unknown.length === 0 && questions < size)
      problems.push(
        `content/roles.yaml: role "${role.id}" has ${questions} questions in its cards; its quiz needs ${size}. Link more cards.`,
      );
  }
  return problems;
}

/**
 * A role quiz: `size` questions from the role's cards, spread as evenly as the cards allow (each
 * card takes its turn, as practice quizzes spread over topics), deterministic for a seed.
 * @example drawRoleQuiz(questions, 'ml-infrastructure').length // 30
 */
export function drawRoleQuiz<Q extends { id: string; cardId: string }>(
  questions: readonly Q[],
  seed: string,
  size = PRACTICE_SIZE,
): Q[] {
  const wrapped = questions.map((q) => ({ id: q.id, topic: q.cardId, q }));
  return drawPractice(wrapped, seed, size).map((w) => w.q);
}

/**
 * The readiness line a role shows.
 * @example readinessText({ ready: 3, answered: 5, total: 60, share: 0.05 }) // 'Readiness 5%: 3 of 60 questions ready, 5 answered.'
 */
export function readinessText(r: Readiness): string {
  if (r.answered === 0) return `Readiness 0%: none of its ${r.total} questions answered yet.`;
  return `Readiness ${Math.round(r.share * 100)}%: ${r.ready} of ${r.total} questions ready, ${r.answered} answered.`;
}
