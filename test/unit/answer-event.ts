/** Answer events as the progress store records them, for tests of the schedule built from them. */
import type { AnswerEvent } from '../../src/schemas/progress-event.ts';

let seq = 0;
/** The next id at `at` with a one-letter kind: ids order events of the same instant as they were made. */
export const eventId = (at: number, kind: string) => `${at}-${kind}${String(seq++).padStart(5, '0')}`;

/**
 * An answer to `questionId` at `at` (20 s to answer, option a, on the meters card, in review).
 * @example answerEvent('q1', Date.parse('2026-03-02T09:00:00Z'), false)
 */
export function answerEvent(
  questionId: string,
  at: number,
  correct: boolean,
  timeMs = 20_000,
  choice: AnswerEvent['choice'] = ['a'],
): AnswerEvent {
  return {
    id: eventId(at, 't'),
    at,
    tz: 'UTC',
    offsetMin: 0,
    type: 'answer',
    questionId,
    cardId: 'meters/util',
    topic: 'meters',
    choice,
    correct,
    timeMs,
    context: 'review',
  };
}
