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

/**
 * A role's readiness, in words a learner can check: a question counts as soon as their latest answer to it is
 * right, and stops counting when they get it wrong (until they get it right again). So it moves the day they
 * answer well. FSRS still decides when each comes back; the ones whose review has come are named apart.
 */
export interface Readiness {
  /** Questions whose latest answer was right. */
  ready: number;
  /** Questions answered at least once. */
  answered: number;
  /** Every question of the role's cards. */
  total: number;
  /** ready / total, 0–1 (0 for a role without questions). */
  share: number;
  /** Of the ready ones, those on a review interval whose review has come. */
  dueToKeep: number;
}

/**
 * Each question's latest answer, right or not, from the active answers in time order (undone ones left out).
 * @example latestAnswers([{ questionId: 'a', correct: false }, { questionId: 'a', correct: true }]) // Map { 'a' => true }
 */
export function latestAnswers(answers: readonly { questionId: string; correct: boolean }[]): Map<string, boolean> {
  const latest = new Map<string, boolean>();
  for (const a of answers) latest.set(a.questionId, a.correct);
  return latest;
}

/**
 * Whether a ready question's review has come: on a review interval (FSRS state Review) and due at `now`.
 * @example reviewHasCome({ state: 2, due: new Date('2026-05-01') }, Date.parse('2026-05-04')) // true
 */
export function reviewHasCome(card: MemoryState | undefined, now: number): boolean {
  return card !== undefined && card.state === FSRS_REVIEW_STATE && card.due.getTime() <= now;
}

/**
 * Readiness for a role with these question ids: `latest` from `latestAnswers`, `cards` the schedule's FSRS cards.
 * @example readiness(['a', 'b'], new Map([['a', true]]), new Map(), now) // { ready: 1, answered: 1, total: 2, share: 0.5, dueToKeep: 0 }
 */
export function readiness(
  questionIds: readonly string[],
  latest: ReadonlyMap<string, boolean>,
  cards: ReadonlyMap<string, MemoryState>,
  now: number,
): Readiness {
  let ready = 0;
  let answered = 0;
  let dueToKeep = 0;
  for (const id of questionIds) {
    const right = latest.get(id);
    if (right === undefined) continue;
    answered += 1;
    if (!right) continue;
    ready += 1;
    if (reviewHasCome(cards.get(id), now)) dueToKeep += 1;
  }
  const total = questionIds.length;
  return { ready, answered, total, share: total === 0 ? 0 : ready / total, dueToKeep };
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
 * The readiness line a role shows, with how it grows.
 * @example readinessText({ ready: 3, answered: 5, total: 60, share: 0.05, dueToKeep: 0 })
 * // 'Readiness 5%: your latest answer is right on 3 of its 60 questions (5 answered). Each question you get right counts at once; one you get wrong counts again once you get it right.'
 */
export function readinessText(r: Readiness): string {
  const how = 'Each question you get right counts at once; one you get wrong counts again once you get it right.';
  if (r.answered === 0) return `Readiness 0%: none of its ${r.total} questions answered yet. ${how}`;
  const keep = r.dueToKeep ? ` ${r.dueToKeep} of them ${r.dueToKeep === 1 ? 'is' : 'are'} due for review now.` : '';
  return `Readiness ${Math.round(r.share * 100)}%: your latest answer is right on ${r.ready} of its ${r.total} questions (${r.answered} answered). ${how}${keep}`;
}
