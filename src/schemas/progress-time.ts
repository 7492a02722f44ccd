/**
 * Answers are facts, times are hints. The time a learner took comes from the device clock (the
 * time since the question appeared), so it can be anything: a phone left on a question over a
 * weekend, a clock set back. Such a time is clamped into [0, MAX_DURATION_MS] and the record says
 * so (`timeClamped` / `durationClamped`), instead of the record being refused. No zod here: the
 * light write path (src/store/record.ts) uses it too.
 */

/** A day, in ms: the longest answer or quiz time kept. */
export const MAX_DURATION_MS = 8.64e7;

/**
 * A duration made plausible: negative or not a number → 0, over a day → a day.
 *
 * @example clampDurationMs(-240_000) // { ms: 0, clamped: true }
 */
export function clampDurationMs(ms: number): { ms: number; clamped: boolean } {
  if (ms >= 0 && ms <= MAX_DURATION_MS) return { ms, clamped: false };
  return { ms: ms > MAX_DURATION_MS ? MAX_DURATION_MS : 0, clamped: true };
}

/** The duration field of each event type that has one, and the flag that says it was clamped. */
export const DURATION_FIELDS = {
  answer: ['timeMs', 'timeClamped'],
  'quiz-done': ['durationMs', 'durationClamped'],
  'lab-done': ['durationMs', 'durationClamped'],
} as const satisfies Record<string, readonly [string, string]>;

/**
 * The record with an implausible duration clamped and flagged (a copy), or the record itself when
 * there is nothing to clamp (also when it is not an event with a numeric duration: validation decides).
 */
export function withPlausibleDuration<T>(record: T): T {
  if (typeof record !== 'object' || record === null) return record;
  const r = record as Record<string, unknown>;
  const fields = Object.hasOwn(DURATION_FIELDS, r['type'] as string)
    ? DURATION_FIELDS[r['type'] as keyof typeof DURATION_FIELDS]
    : null;
  if (!fields || typeof r[fields[0]] !== 'number') return record;
  const { ms, clamped } = clampDurationMs(r[fields[0]] as number);
  return clamped ? ({ ...r, [fields[0]]: ms, [fields[1]]: true } as T) : record;
}
