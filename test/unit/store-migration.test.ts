import { afterEach, describe, expect, test } from 'vitest';
import { freshStore, rawAll, rawPut } from './store-helpers.ts';
import { closeProgress, getStreak, openProgress, type UseStore } from '../../src/store/progress.ts';
import { CURRENT_SCHEMA_VERSION, migrateV1 } from '../../src/store/migrations.ts';

/**
 * The v1 fixture: what the prototype stored under the single key `progress` (documented in
 * src/store/migrations.ts). Two answers on 2026-03-28 and three reads, one item corrupt.
 */
const V1_FIXTURE = {
  version: 1,
  answers: [
    {
      q: 'gpu-util-definition',
      card: 'meters/gpu-util',
      topic: 'meters',
      ok: true,
      ms: 4200,
      t: Date.parse('2026-03-28T09:00:00+01:00'),
    },
    {
      q: 'sm-active',
      card: 'meters/sm-active',
      topic: 'meters',
      ok: false,
      ms: 12000,
      t: Date.parse('2026-03-28T09:01:00+01:00'),
    },
    { q: 'broken', ok: 'maybe' },
  ],
  read: [
    { card: 'meters/gpu-util', topic: 'meters', t: Date.parse('2026-03-28T08:55:00+01:00') },
    { card: 'meters/sm-active', topic: 'meters', t: Date.parse('2026-03-29T21:00:00+02:00') },
    { card: 'training/dataloader', topic: 'training', t: Date.parse('2026-03-30T07:00:00+02:00') },
  ],
  saved: ['meters/gpu-util'],
};
const NOW = Date.parse('2026-03-30T12:00:00+02:00');

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});

describe('migrateV1', () => {
  test('turns every valid v1 item into an event with the device zone, and rejects the rest', () => {
    const m = migrateV1(V1_FIXTURE, 'Europe/Berlin', NOW);
    expect(m.events.map((e) => e.type)).toEqual(['answer', 'answer', 'card-read', 'card-read', 'card-read', 'saved']);
    expect(m.events[0]).toMatchObject({
      id: `${V1_FIXTURE.answers[0]!.t}-v1a0`,
      tz: 'Europe/Berlin',
      offsetMin: 60,
      questionId: 'gpu-util-definition',
      correct: true,
      timeMs: 4200,
      choice: [],
    });
    expect(m.events[3]).toMatchObject({ offsetMin: 120 }); // after the DST switch
    expect(m.rejected).toHaveLength(1);
    expect(m.rejected[0]!.where).toBe('progress.answers.2');
  });

  test('gives the same ids when run twice (an interrupted migration rewrites the same keys)', () => {
    expect(migrateV1(V1_FIXTURE, 'Europe/Berlin', NOW).events.map((e) => e.id)).toEqual(
      migrateV1(V1_FIXTURE, 'Europe/Berlin', NOW).events.map((e) => e.id),
    );
  });
});

describe('opening a v1 database', () => {
  test('migrates to the event log in one go, quarantining the corrupt item', async () => {
    const { store } = freshStore();
    await rawPut(store, 'progress', V1_FIXTURE);
    opened.push(store);
    const p = await openProgress({ tabs: false, storage: null, tz: 'Europe/Berlin', clock: () => NOW }, store);
    const s = p.snapshot();
    expect(s.schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
    expect(s.answers).toHaveLength(2);
    expect(s.savedCardIds).toEqual(['meters/gpu-util']);
    expect(s.quarantined).toHaveLength(1);
    expect(s.quarantined[0]!.value).toEqual({ q: 'broken', ok: 'maybe' });
    const keys = (await rawAll(store)).map(([k]) => k);
    expect(keys).not.toContain('progress');
    expect(keys).toContain('meta');
    expect(keys.filter((k) => k.startsWith('e:'))).toHaveLength(6);
    expect((await getStreak({ now: NOW, tz: 'Europe/Berlin' }, store)).current).toBe(3); // reads on 28, 29, 30 March
  });

  test('a second open finds nothing to migrate and changes nothing', async () => {
    const { store } = freshStore();
    await rawPut(store, 'progress', V1_FIXTURE);
    await openProgress({ tabs: false, storage: null, tz: 'Europe/Berlin', clock: () => NOW }, store);
    await closeProgress(store);
    const before = await rawAll(store);
    opened.push(store);
    await openProgress({ tabs: false, storage: null, tz: 'Europe/Berlin', clock: () => NOW + 1 }, store);
    expect(await rawAll(store)).toEqual(before);
  });
});
