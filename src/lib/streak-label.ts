/**
 * The header streak badge's words (re-exported by progress-text.ts), apart so that the badge
 * needs nothing else from there. Pure.
 */
import { ANSWERS_PER_DAY, type StreakNow } from './streak-rules.ts';

/** "1 day", "3 days". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The streak badge's accessible label.
 * @example streakLabel({ current: 3, todayDone: true, freezesHeld: 1 }) // "Streak: 3 days, today done. 1 freeze held. Open your progress."
 */
export function streakLabel(s: StreakNow): string {
  const today =
    s.current === 0
      ? `Read a card or answer ${ANSWERS_PER_DAY} questions to start one`
      : s.todayDone
        ? 'today done'
        : 'keep it going today';
  const freezes = s.freezesHeld ? ` ${plural(s.freezesHeld, 'freeze')} held.` : '';
  return `Streak: ${plural(s.current, 'day')}, ${today}.${freezes} Open your progress.`;
}
