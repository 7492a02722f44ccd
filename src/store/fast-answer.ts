/**
 * A plain-JS check of an answer event that tests exactly the rules of `AnswerEventSchema` (and the
 * union's id/at refinement) without zod's per-field machinery: ~1 µs instead of ~4 µs an event,
 * which is most of opening a store of 50,000 answers. It may refuse more than the schema (then the
 * schema decides), never less: test/unit/store-fast-answer.test.ts checks that on generated records.
 * Keep it in step with schema.ts; the property test fails when the two drift.
 */
import type { AnswerEvent } from './schema.ts';

// Patterns are duplicated from schema.ts (importing them would make a cycle): kept equal by test.
const EVENT_ID = /^\d{1,15}-[a-z0-9]{4,32}$/;
const ZONE = /^(?=.{1,64}$)(?:[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*|UTC[+-]\d{2}:\d{2})$/;
const REF = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
const CHOICE = /^[^\u0000-\u001f\u007f-\u009f]{0,8}$/;
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
]);
const CONTEXTS = new Set(['card', 'practice', 'review', 'retake', 'lab']);
const KINDS = new Set(['single', 'multiple', 'numeric']);

const isRef = (v: unknown) => typeof v === 'string' && REF.test(v);
const intIn = (v: unknown, lo: number, hi: number) => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;

/** True only for a plain object that `AnswerEventSchema` (and the id/at rule) accepts unchanged. */
export function isValidAnswerFast(v: unknown): v is AnswerEvent {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
  const r = v as Record<string, unknown>;
  if (r['type'] !== 'answer') return false;
  for (const k in r) if (!Object.hasOwn(r, k) || !KEYS.has(k)) return false;
  const { id, at, tz, offsetMin, choice, timeMs, kind } = r;
  if (typeof id !== 'string' || !EVENT_ID.test(id) || !intIn(at, 0, 8.64e15) || !id.startsWith(`${at as number}-`))
    return false;
  if (typeof tz !== 'string' || !ZONE.test(tz) || !intIn(offsetMin, -840, 840)) return false;
  if (!isRef(r['questionId']) || !isRef(r['cardId']) || !isRef(r['topic'])) return false;
  if (typeof r['correct'] !== 'boolean' || typeof timeMs !== 'number' || !(timeMs >= 0 && timeMs <= 8.64e7))
    return false;
  if (!CONTEXTS.has(r['context'] as string)) return false;
  if (Array.isArray(choice)) {
    if (choice.length > 16) return false;
    for (let i = 0; i < choice.length; i++)
      if (!Object.hasOwn(choice, i) || typeof choice[i] !== 'string' || !CHOICE.test(choice[i] as string)) return false;
  } else if (typeof choice !== 'number' || !Number.isFinite(choice)) return false;
  return 'kind' in r ? KINDS.has(kind as string) : true;
}
