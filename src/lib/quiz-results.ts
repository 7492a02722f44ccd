/**
 * What a finished quiz says: the score by topic, and where its mistakes went in the review
 * schedule (FSRS, src/lib/review.ts). Pure: the schedule, clock and locale are passed in.
 */
import { clockTime, usableLocale } from './locale.ts';

// The score by topic is worked out when the quiz ends, so it lives with the quiz's state (no extra chunk).
export { topicBreakdown, type TopicScore } from './quiz-session.ts';

/**
 * "4:05" from milliseconds.
 * @example formatDuration(245_000) // '4:05'
 */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The part of a question's FSRS state read here (ts-fsrs `Card`). */
export interface ScheduledCard {
  card: { due: Date; last_review?: Date | undefined };
}

/** Where a quiz's mistakes stand in the review schedule. */
export type MistakesScheduled =
  | { status: 'none' }
  /** Some mistakes are not in the schedule yet (still being recorded): ask again on the next change. */
  | { status: 'pending' }
  | {
      status: 'scheduled';
      count: number;
      nextReviewMs: number;
      lastReviewMs: number;
      /** When each mistake is back in review, by question id. */
      backMs: Map<string, number>;
    };

/**
 * How many of the quiz's wrong answers the schedule holds, and when the first of them is due again.
 * A mistake counts once the schedule has folded that answer (its state was last reviewed at or after
 * the answer's time); until all have been, `pending`.
 */
export function mistakesScheduled(
  schedule: ReadonlyMap<string, ScheduledCard>,
  wrong: readonly { questionId: string; at?: number | undefined }[],
): MistakesScheduled {
  if (wrong.length === 0) return { status: 'none' };
  const backMs = new Map<string, number>();
  for (const a of wrong) {
    const s = schedule.get(a.questionId);
    const reviewedMs = s?.card.last_review?.getTime() ?? -Infinity;
    if (!s || (a.at !== undefined && reviewedMs < a.at)) return { status: 'pending' };
    backMs.set(a.questionId, s.card.due.getTime());
  }
  const times = [...backMs.values()];
  return {
    status: 'scheduled',
    count: wrong.length,
    nextReviewMs: Math.min(...times),
    lastReviewMs: Math.max(...times),
    backMs,
  };
}

/** Local calendar day number of an instant (days since the epoch in the device's zone). */
function localDay(ms: number): number {
  const d = new Date(ms);
  return Math.floor(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / 86_400_000);
}

/**
 * When a review is due, as a learner reads it: "now", "today at 18:05", "tomorrow at 9:00 AM",
 * "on Mon, Dec 7" (device zone, the locale's own clock: src/lib/locale.ts `clockTime`; an unusable locale falls
 * back to en-US).
 */
export function reviewWhen(dueMs: number, nowMs: number, locale?: string): string {
  if (dueMs <= nowMs) return 'now';
  const tag = usableLocale(locale);
  const time = clockTime(dueMs, tag);
  const days = localDay(dueMs) - localDay(nowMs);
  if (days === 0) return `today at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  return `on ${new Intl.DateTimeFormat(tag, { weekday: 'short', month: 'short', day: 'numeric' }).format(dueMs)}`;
}
