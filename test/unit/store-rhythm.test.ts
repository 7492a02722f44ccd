import { afterEach, describe, expect, test } from 'vitest';
import { freshStore, rawAll, rawPut } from './store-helpers.ts';
import { closeProgress, goalToday, openProgress, streakOf, type UseStore } from '../../src/store/progress.ts';
import { loadRhythm, RHYTHM_KEY, resetRhythmMemory, saveRhythm, type RhythmStorage } from '../../src/store/rhythm.ts';
import { dayStartAt, parseRhythm, withDayStartHour } from '../../src/lib/rhythm.ts';
import { MIDNIGHT } from '../../src/lib/streak.ts';

/** What the prototype stored (format v1, src/store/migrations.ts): a learner who reads late at night. */
const V1_LATE_NIGHT = {
  version: 1,
  answers: [],
  read: [
    { card: 'meters/gpu-util', topic: 'meters', t: Date.parse('2026-03-28T08:55:00+01:00') },
    { card: 'meters/sm-active', topic: 'meters', t: Date.parse('2026-03-29T01:30:00+01:00') },
    { card: 'training/dataloader', topic: 'training', t: Date.parse('2026-03-30T02:30:00+02:00') },
  ],
  saved: [],
};
const TZ = 'Europe/Berlin';

/** localStorage as a Map, to see what is written. */
function memoryStorage(initial: Record<string, string> = {}): RhythmStorage & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

const opened: UseStore[] = [];
afterEach(async () => {
  resetRhythmMemory();
  for (const s of opened.splice(0)) await closeProgress(s);
});

async function openV1(now: number) {
  const { store } = freshStore();
  await rawPut(store, 'progress', V1_LATE_NIGHT);
  opened.push(store);
  const p = await openProgress({ tabs: false, storage: null, tz: TZ, clock: () => now }, store);
  return { store, snapshot: p.snapshot() };
}

describe('the daily rhythm for a learner with old data and no settings', () => {
  test.each(['2026-03-30T03:00:00+02:00', '2026-03-30T12:00:00+02:00'])(
    'keeps every event and the streak as it was (3 days, today done) when first read at %s',
    async (iso) => {
      const now = Date.parse(iso);
      const { store, snapshot } = await openV1(now);
      const before = await rawAll(store);
      const storage = memoryStorage();
      const rhythm = loadRhythm(now, storage);
      expect(parseRhythm(storage.data.get(RHYTHM_KEY) ?? null)).toEqual(rhythm); // migrated and written
      const midnight = streakOf(snapshot, now, TZ, MIDNIGHT);
      expect(midnight).toMatchObject({ current: 3, todayDone: true });
      expect(streakOf(snapshot, now, TZ, dayStartAt(rhythm))).toEqual(midnight);
      expect(snapshot.events.filter((e) => e.type === 'card-read')).toHaveLength(3);
      expect(await rawAll(store)).toEqual(before); // the log is untouched
      expect(loadRhythm(now + 60_000, storage)).toEqual(rhythm); // read back, not migrated again
    },
  );

  test("today's goal counts the card read this morning, for home's goal box and the progress page alike", async () => {
    const now = Date.parse('2026-03-28T12:00:00+01:00'); // a card was read at 08:55 that day
    const { snapshot } = await openV1(now);
    const day = dayStartAt(loadRhythm(now, memoryStorage()));
    expect(goalToday(snapshot, 'read-1', now, TZ, day)).toEqual({
      done: true,
      text: 'Goal met: you read a card today.',
    });
    expect(goalToday(snapshot, 'answer-10', now, TZ, day)).toMatchObject({ done: false });
    const later = Date.parse('2026-03-31T12:00:00+02:00'); // nothing read since the night before yesterday
    expect(goalToday(snapshot, 'read-1', later, TZ, day)).toEqual({
      done: false,
      text: 'Read a card to its end to meet today’s goal.',
    });
  });

  test('a corrupt stored rhythm is migrated again, and the streak is still unchanged', async () => {
    const now = Date.parse('2026-03-30T12:00:00+02:00');
    const { snapshot } = await openV1(now);
    const storage = memoryStorage({ [RHYTHM_KEY]: '{"v":1,"goal":"answer-10","dayStarts":[{"fromAt":0,"hour":99}]}' });
    const rhythm = loadRhythm(now, storage);
    expect(rhythm.goal).toBe('streak-rule');
    expect(streakOf(snapshot, now, TZ, dayStartAt(rhythm)).current).toBe(3);
  });

  test('choosing 4:00 later keeps the past as it was counted; only later nights count for the evening before', async () => {
    const now = Date.parse('2026-03-30T12:00:00+02:00');
    const { snapshot } = await openV1(now);
    const storage = memoryStorage();
    saveRhythm(withDayStartHour(loadRhythm(now, storage), 4, now, 120), storage);
    expect(streakOf(snapshot, now, TZ, dayStartAt(loadRhythm(now, storage))).current).toBe(3);
    // Had 4:00 applied to the past, the 1:30 read would move to the 28th and the streak would be 2:
    expect(streakOf(snapshot, now, TZ, () => 4).current).toBe(2);
  });
});
