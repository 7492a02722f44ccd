/**
 * A plain-JS check of an answer event that tests exactly the rules of `AnswerEventSchema` (and the
 * union's id/at refinement) without zod's per-field machinery: ~1 µs instead of ~4 µs an event,
 * which is most of opening a store of 50,000 answers. It may refuse more than the schema (then the
 * schema decides), never less: test/unit/store-fast-answer.test.ts checks that on generated records.
 * Keep it in step with progress-event.ts; the property test fails when the two drift.
 *
 * Also `parseEvent()`, the one way to validate a stored event (it lives here, not beside the schema,
 * so that the two modules do not import each other).
 */
import type * as z from 'zod/mini';
import {
  CHOICE_PATTERN as CHOICE,
  CONTEXTS as CONTEXT_LIST,
  EVENT_ID_PATTERN as EVENT_ID,
  KINDS as KIND_LIST,
  MAX_DURATION_MS,
  MAX_EPOCH_MS,
  ProgressEventSchema,
  REF_PATTERN as REF,
  ZONE_PATTERN as ZONE,
  type AnswerEvent,
  type ProgressEvent,
} from './progress-event.ts';
import { withPlausibleDuration } from './progress-time.ts';
const KEYS = new Set([
  'id',
  'at',
  'tz',
  'offsetMin',
  'type',
  'questionId',
  'cardId',
  'topic',
  'choice',
  'correct',
  'timeMs',
  'context',
  'kind',
  'timeClamped',
]);
const CONTEXTS = new Set<string>(CONTEXT_LIST);
const KINDS = new Set<string>(KIND_LIST);

const isRef = (v: unknown) => typeof v === 'string' && REF.test(v);
const intIn = (v: unknown, lo: number, hi: number) => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;

/** True only for a plain object that `AnswerEventSchema` (and the id/at rule) accepts unchanged. */
export function isValidAnswerFast(v: unknown): v is AnswerEvent {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
  const r = v as Record<string, unknown>;
  if (r['type'] !== 'answer') return false;
  for (const k in r) if (!Object.hasOwn(r, k) || !KEYS.has(k)) return false;
  const { id, at, tz, offsetMin, choice, timeMs, kind } = r;
  if (typeof id !== 'string' || !EVENT_ID.test(id) || !intIn(at, 0, MAX_EPOCH_MS) || !id.startsWith(`${at as number}-`))
    return false;
  if (typeof tz !== 'string' || !ZONE.test(tz) || !intIn(offsetMin, -840, 840)) return false;
  if (!isRef(r['questionId']) || !isRef(r['cardId']) || !isRef(r['topic'])) return false;
  if (typeof r['correct'] !== 'boolean' || typeof timeMs !== 'number' || !(timeMs >= 0 && timeMs <= MAX_DURATION_MS))
    return false;
  if (!CONTEXTS.has(r['context'] as string)) return false;
  if (Array.isArray(choice)) {
    if (choice.length > 16) return false;
    for (let i = 0; i < choice.length; i++)
      if (!Object.hasOwn(choice, i) || typeof choice[i] !== 'string' || !CHOICE.test(choice[i] as string)) return false;
  } else if (typeof choice !== 'number' || !Number.isFinite(choice)) return false;
  if ('timeClamped' in r && r['timeClamped'] !== true) return false;
  return 'kind' in r ? KINDS.has(kind as string) : true;
}

/** What `parseEvent` returns: the event, or the zod issues. */
export type EventParse =
  { success: true; data: ProgressEvent } | { success: false; error: { issues: readonly z.core.$ZodIssue[] } };

/**
 * Validates one record against `ProgressEventSchema`. A well-formed answer (the bulk of any log)
 * is accepted by a plain-JS check that tests the same rules (`isValidAnswerFast` above; a property test
 * shows it never accepts what the schema refuses), ~5× cheaper; everything else goes through zod,
 * which also writes the messages for anything refused. An implausible duration (a clock set back, a
 * question left open for days) is clamped and flagged, never a reason to refuse the record: the
 * data returned is then a clamped copy (src/schemas/progress-time.ts).
 */
export function parseEvent(raw: unknown): EventParse {
  if (isValidAnswerFast(raw)) return { success: true, data: raw };
  const forbidden = forbiddenKey(raw);
  if (forbidden) {
    const issue = {
      code: 'custom',
      path: [forbidden],
      message: `A record never has a "${forbidden}" field.`,
      input: raw,
    };
    return { success: false, error: { issues: [issue as z.core.$ZodIssue] } };
  }
  return ProgressEventSchema.safeParse(withPlausibleDuration(raw));
}

const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

/** The first own key that no record may have (unknown keys are otherwise kept), or null. */
function forbiddenKey(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  return FORBIDDEN_KEYS.find((k) => Object.hasOwn(raw, k)) ?? null;
}
