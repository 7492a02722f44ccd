/**
 * Roles as pages use them, read at build time: content/roles.yaml with its cards and their questions.
 * A role linking a card that does not exist fails the build (src/lib/roles.ts says which and how to fix it).
 */
import { getCollection } from 'astro:content';
import type { QuizQuestion } from '../lib/quiz.ts';
import { checkRoles, drawRoleQuiz } from '../lib/roles.ts';
import { cardQuestions, getCards, type CardEntry } from './deck.ts';

/** A role, its cards in the order listed, every question of them, and its 30-question quiz. */
export interface RoleEntry {
  id: string;
  title: string;
  description: string;
  cards: CardEntry[];
  /** Every question of the role's cards (what readiness counts). */
  questionIds: string[];
  /** The role quiz: 30 questions spread over its cards, drawn with the role id as seed. */
  quiz: QuizQuestion[];
}

/** Every role in list order; throws with every problem when a role links an unknown card. */
export async function getRoles(): Promise<RoleEntry[]> {
  const cards = new Map((await getCards()).map((c) => [c.id, c]));
  const roles = (await getCollection('roles')).map((r) => r.data);
  const problems = checkRoles(roles, new Map([...cards].map(([id, c]) => [id, c.data.questions.length])));
  if (problems.length) throw new Error(`Roles have ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  return roles
    .sort((a, b) => a.order - b.order || a.title.localeCompare(b.title))
    .map((role) => {
      const roleCards = role.cards.map((id) => cards.get(id)!);
      const questions = roleCards.flatMap(cardQuestions);
      return {
        id: role.id,
        title: role.title,
        description: role.description,
        cards: roleCards,
        questionIds: questions.map((q) => q.id),
        quiz: drawRoleQuiz(questions, role.id),
      };
    });
}
