/**
 * Practice history from the progress log's finished quizzes ('quiz-done' events with context
 * 'practice'): each attempt, the score by topic over all of them, the trend, and a quiz's best and
 * last score. Pure: the events are passed in.
 */
import type { TopicScore } from './quiz-session.ts';

/** A finished quiz as the log keeps it (src/schemas/progress-event.ts `QuizDoneEvent`). */
export interface QuizDoneLike {
  type: string;
  at: number;
  context?: string;
  quizId?: string;
  correct?: number;
  total?: number;
  durationMs?: number;
  topics?: readonly TopicScore[] | undefined;
}

/** One practice attempt. */
export interface Attempt {
  at: number;
  quizId: string;
  correct: number;
  total: number;
  durationMs: number;
  /** Score by topic; empty for attempts recorded before it was kept. */
  topics: readonly TopicScore[];
}

/** Every practice attempt, the newest first. */
export function practiceAttempts(events: readonly { type: string; at: number }[]): Attempt[] {
  const out: Attempt[] = [];
  for (const any of events) {
    if (any.type !== 'quiz-done') continue;
    const e = any as QuizDoneLike;
    if (e.context !== 'practice' || !e.quizId || !e.total) continue;
    out.push({
      at: e.at,
      quizId: e.quizId,
      correct: e.correct ?? 0,
      total: e.total,
      durationMs: e.durationMs ?? 0,
      topics: e.topics ?? [],
    });
  }
  return out.sort((a, b) => b.at - a.at);
}

/** Right answers per topic over every attempt that kept its topics, by most questions first. */
export function topicTotals(attempts: readonly Attempt[]): TopicScore[] {
  const by = new Map<string, TopicScore>();
  for (const a of attempts)
    for (const t of a.topics) {
      const s = by.get(t.topic) ?? { topic: t.topic, correct: 0, total: 0 };
      s.correct += t.correct;
      s.total += t.total;
      by.set(t.topic, s);
    }
  return [...by.values()].sort((a, b) => b.total - a.total || a.topic.localeCompare(b.topic));
}

/** Whole percent right. */
export const percentOf = (correct: number, total: number): number =>
  total > 0 ? Math.round((correct / total) * 100) : 0;

/** The trend: the average score of the latest `window` attempts against the `window` before them. */
export interface Trend {
  recentPct: number;
  recentCount: number;
  /** null while there are not yet attempts before the recent ones. */
  earlierPct: number | null;
}

/** Newest-first attempts → the average of the latest `window`, and of the `window` before (pooled answers). */
export function practiceTrend(attempts: readonly Attempt[], window = 5): Trend | null {
  if (attempts.length === 0) return null;
  const pool = (xs: readonly Attempt[]) =>
    percentOf(
      xs.reduce((n, a) => n + a.correct, 0),
      xs.reduce((n, a) => n + a.total, 0),
    );
  const recent = attempts.slice(0, window);
  const earlier = attempts.slice(window, window * 2);
  return { recentPct: pool(recent), recentCount: recent.length, earlierPct: earlier.length ? pool(earlier) : null };
}

/**
 * "Last 5 quizzes: 78% right, up from 64% before." (before: the attempts just older than those).
 * @example trendSentence({ recentPct: 80, recentCount: 1, earlierPct: null }) // 'Your quiz: 80% right.'
 */
export function trendSentence(t: Trend): string {
  const head = t.recentCount === 1 ? 'Your quiz' : `Last ${t.recentCount} quizzes`;
  if (t.earlierPct === null) return `${head}: ${t.recentPct}% right.`;
  if (t.recentPct === t.earlierPct) return `${head}: ${t.recentPct}% right, the same as before.`;
  return `${head}: ${t.recentPct}% right, ${t.recentPct > t.earlierPct ? 'up' : 'down'} from ${t.earlierPct}% before.`;
}

/** A quiz's best score (the highest share right; the earliest of equals) and its last, or null when never finished. */
export function bestAndLast(
  attempts: readonly Attempt[],
  quizId: string,
): { best: Attempt; last: Attempt; count: number } | null {
  const mine = attempts.filter((a) => a.quizId === quizId);
  if (mine.length === 0) return null;
  let best = mine[0]!;
  for (const a of mine) if (a.correct / a.total >= best.correct / best.total) best = a; // newest first: ties go older
  return { best, last: mine[0]!, count: mine.length };
}
