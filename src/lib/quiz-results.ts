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
  | { status: 'scheduled'; count: number; nextReviewMs: number };

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
  let next = Infinity;
  for (const a of wrong) {
    const s = schedule.get(a.questionId);
    const reviewedMs = s?.card.last_review?.getTime() ?? -Infinity;
    if (!s || (a.at !== undefined && reviewedMs < a.at)) return { status: 'pending' };
    next = Math.min(next, s.card.due.getTime());
  }
  return { status: 'scheduled', count: wrong.length, nextReviewMs: next };
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

/**
 * "3 mistakes added to your review queue, next review today at 18:05."
 * @example mistakesSentence(1, 'tomorrow at 09:00') // '1 mistake added to your review queue, next review tomorrow at 09:00.'
 */
export function mistakesSentence(count: number, when: string): string {
  return `${count} ${count === 1 ? 'mistake' : 'mistakes'} added to your review queue, next review ${when}.`;
}

/**
 * The text of a prompt's HTML, for a one-line summary (tags dropped, common entities decoded).
 * @example plainText('<p>What does <code>GPU-Util</code> &amp; SM mean?</p>') // 'What does GPU-Util & SM mean?'
 */
export function plainText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => entities[e]!)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/ ([?.!,:;])/g, '$1');
}
