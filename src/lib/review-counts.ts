/**
 * The review queue in the words every screen uses (Results, Review and Home), as Anki shows its three counts:
 * - **learning**: questions answered wrong recently (FSRS learning or relearning steps); they come back within
 *   minutes, so each is counted as "back now" or "back at …";
 * - **due**: questions answered right before whose next review has come;
 * - **new**: questions never answered, offered after the others (at most `NEW_PER_SESSION` a session).
 * Pure: the schedule and clock are passed in (src/lib/review.ts builds the schedule). Imports nothing heavy, so
 * the results and the home page can use it without loading the scheduler.
 */
import { reviewWhen } from './quiz-results.ts';

/** ts-fsrs's `State.Learning` and `State.Relearning` (its enum, without loading ts-fsrs; a unit test checks them). */
export const LEARNING_STATES: readonly number[] = [1, 3];

/** The part of a question's FSRS state read here (ts-fsrs `Card`). */
export interface CountedCard {
  card: { due: Date; state: number };
}

export interface QueueCounts {
  /** Learning questions back now. */
  learning: number;
  /** Remembered questions whose review has come. */
  due: number;
  /** Never-answered questions offered after them (up to the session's limit). */
  fresh: number;
  /** Learning questions not back yet. */
  learningLater: number;
  /** When the first of those is back (epoch ms), or null. */
  nextLearningMs: number | null;
}

/**
 * The counts for a bank at `now`: the same questions `reviewQueue` serves (learning and due are its `due`,
 * split by state; new is its `fresh`, `newLimit` at most: review.ts's NEW_PER_SESSION). Questions no longer in
 * the bank are left out.
 */
export function queueCounts(
  bank: readonly { id: string }[],
  schedule: ReadonlyMap<string, CountedCard>,
  now: number,
  newLimit: number,
): QueueCounts {
  const c: QueueCounts = { learning: 0, due: 0, fresh: 0, learningLater: 0, nextLearningMs: null };
  for (const q of bank) {
    const s = schedule.get(q.id);
    if (!s) {
      if (c.fresh < newLimit) c.fresh++;
      continue;
    }
    const dueMs = s.card.due.getTime();
    if (LEARNING_STATES.includes(s.card.state)) {
      if (dueMs <= now) c.learning++;
      else {
        c.learningLater++;
        c.nextLearningMs = Math.min(c.nextLearningMs ?? Infinity, dueMs);
      }
    } else if (dueMs <= now) c.due++;
  }
  return c;
}

/** How many questions the review has for the learner now (learning and due; new ones are extra). */
export const readyNow = (c: QueueCounts) => c.learning + c.due;

/**
 * The review page's line: what is in the session now, then what comes back later.
 * @example queueSentence({ learning: 1, due: 2, fresh: 10, learningLater: 3, nextLearningMs: now + 60_000 }, now, 'en-GB')
 * // 'Now: 1 learning and 2 due, then 10 new. 3 more learning back today at 10:01.'
 */
export function queueSentence(c: QueueCounts, nowMs: number, locale?: string): string {
  const parts = [c.learning && `${c.learning} learning`, c.due && `${c.due} due`].filter(Boolean).join(' and ');
  const now = parts ? `Now: ${parts}, then ${c.fresh} new.` : `Nothing to review now, then ${c.fresh} new.`;
  if (!c.learningLater || c.nextLearningMs === null) return now;
  return `${now} ${c.learningLater} more learning back ${c.learningLater > 1 ? 'from ' : ''}${reviewWhen(c.nextLearningMs, nowMs, locale)}.`;
}

/** The words under the counts, once per screen. */
export const QUEUE_WORDS =
  'Learning: answered wrong recently, back within minutes. Due: answered right before, and its next review has come. New: not answered yet.';

/**
 * The results' line for a quiz's mistakes: they join the queue as learning, and when they come back.
 * @example mistakesSentence(4, 'today at 10:01', 'today at 10:10') // '4 mistakes added to your review queue as learning: the first back today at 10:01, the last today at 10:10.'
 */
export function mistakesSentence(count: number, first: string, last: string = first): string {
  const what = `${count} ${count === 1 ? 'mistake' : 'mistakes'} added to your review queue as learning`;
  return first === last ? `${what}: back ${first}.` : `${what}: the first back ${first}, the last ${last}.`;
}
