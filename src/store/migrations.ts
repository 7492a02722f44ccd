/**
 * Schema versions of the progress database, and the migrations between them. Pure.
 *
 * v1 (the prototype, before the event log): ONE record under the key `progress`:
 *   { version: 1,
 *     answers: [{ q: questionId, card: cardId, topic, ok: boolean, ms: timeMs, t: epoch ms }],
 *     read:    [{ card: cardId, topic, t: epoch ms }],
 *     saved:   [cardId, ...] }
 *   No zones, no choices, saved cards without times. The fixture is V1_FIXTURE in test/unit/store-migration.test.ts.
 * v2 (current): one record per event under `e:<id>` (see src/schemas/progress-event.ts), `meta` = { schemaVersion: 2 }.
 *
 * v1 → v2: each answer/read becomes an event with a deterministic id (`<t>-v1a<index>` /
 * `<t>-v1r<index>`, so a migration interrupted and rerun writes the same keys), zone = the
 * device's zone at migration time with the offset it had at each event's time, answer `choice`
 * = [] (unknown) and context 'card'; each saved card becomes a `saved` event at migration time.
 * An item that fails validation is quarantined, never dropped. The store applies the result in
 * one transaction together with deleting `progress` and writing `meta`.
 */
import * as z from 'zod/mini';
import { describeIssues, type ProgressEvent } from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';
import { offsetMinutesIn } from '../lib/streak.ts';

import { CURRENT_SCHEMA_VERSION } from './record.ts';

export { CURRENT_SCHEMA_VERSION };
/** Where v1 kept everything. */
export const V1_KEY = 'progress';

const t = z.int().check(z.minimum(0));
export const V1AnswerSchema = z.object({
  q: z.string(),
  card: z.string(),
  topic: z.string(),
  ok: z.boolean(),
  ms: z.number().check(z.minimum(0)),
  t,
});
export const V1ReadSchema = z.object({ card: z.string(), topic: z.string(), t });
export const V1ProgressSchema = z.object({
  version: z.literal(1),
  answers: z._default(z.array(z.unknown()), []),
  read: z._default(z.array(z.unknown()), []),
  saved: z._default(z.array(z.unknown()), []),
});

export interface MigrationResult {
  events: ProgressEvent[];
  /** Items that could not be migrated: [where, value, why]. */
  rejected: { where: string; value: unknown; reason: string }[];
}

/**
 * Turns a v1 record into v2 events. `tz` is the device's zone now (the best guess for old events);
 * `now` stamps the saved events.
 */
export function migrateV1(record: unknown, tz: string, now: number): MigrationResult {
  const rejected: MigrationResult['rejected'] = [];
  const top = V1ProgressSchema.safeParse(record);
  if (!top.success)
    return { events: [], rejected: [{ where: V1_KEY, value: record, reason: describeIssues(top.error) }] };
  const events: ProgressEvent[] = [];
  const keep = (where: string, value: unknown, candidate: unknown) => {
    const ok = parseEvent(candidate);
    if (ok.success) events.push(ok.data);
    else rejected.push({ where, value, reason: describeIssues(ok.error) });
  };
  top.data.answers.forEach((raw, i) => {
    const a = V1AnswerSchema.safeParse(raw);
    if (!a.success) {
      rejected.push({ where: `${V1_KEY}.answers.${i}`, value: raw, reason: describeIssues(a.error) });
      return;
    }
    const { q, card, topic, ok, ms, t: at } = a.data;
    keep(`${V1_KEY}.answers.${i}`, raw, {
      id: `${at}-v1a${i}`,
      at,
      tz,
      offsetMin: offsetMinutesIn(tz, at),
      type: 'answer',
      questionId: q,
      cardId: card,
      topic,
      choice: [],
      correct: ok,
      timeMs: ms,
      context: 'card',
    });
  });
  top.data.read.forEach((raw, i) => {
    const r = V1ReadSchema.safeParse(raw);
    if (!r.success) {
      rejected.push({ where: `${V1_KEY}.read.${i}`, value: raw, reason: describeIssues(r.error) });
      return;
    }
    keep(`${V1_KEY}.read.${i}`, raw, {
      id: `${r.data.t}-v1r${i}`,
      at: r.data.t,
      tz,
      offsetMin: offsetMinutesIn(tz, r.data.t),
      type: 'card-read',
      cardId: r.data.card,
      topic: r.data.topic,
    });
  });
  top.data.saved.forEach((card, i) => {
    keep(`${V1_KEY}.saved.${i}`, card, {
      id: `${now}-v1s${i}`,
      at: now,
      tz,
      offsetMin: offsetMinutesIn(tz, now),
      type: 'saved',
      cardId: card,
      saved: true,
    });
  });
  return { events, rejected };
}
