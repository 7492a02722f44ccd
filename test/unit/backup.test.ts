import { afterEach, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { answer, freshStore, rawAll, T0 } from './store-helpers.ts';
import {
  applyImport,
  closeProgress,
  exportBackup,
  loadProgress,
  openProgress,
  previewImport,
  recordAnswer,
  toggleSaved,
  type UseStore,
} from '../../src/store/progress.ts';
import { BACKUP_FORMAT, backupToText, createBackup, MAX_BACKUP_BYTES, parseBackup } from '../../src/lib/backup.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';
import type { ProgressEvent } from '../../src/schemas/progress-event.ts';

const opened: UseStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await closeProgress(s);
});
async function storeWith(n: number): Promise<UseStore> {
  const { store } = freshStore();
  opened.push(store);
  await openProgress({ tabs: false, storage: null }, store);
  for (let i = 0; i < n; i++) await recordAnswer(answer(i), store);
  return store;
}
const eventKeys = async (s: UseStore) =>
  (await rawAll(s))
    .filter(([k]) => k.startsWith('e:'))
    .map(([k]) => k)
    .sort();

describe('export and import', () => {
  test('a backup restores everything into an empty store', async () => {
    const from = await storeWith(6);
    await toggleSaved({ cardId: 'meters/gpu-util', at: T0 }, from);
    const { text, fileName } = await exportBackup(T0 + 1000, from);
    expect(fileName).toBe('saturate-progress-2026-03-28.json');
    const to = await storeWith(0);
    const preview = await previewImport(text, to);
    expect(preview).toMatchObject({
      ok: true,
      inFile: 7,
      added: 7,
      addedByType: { answer: 6, saved: 1 },
      savedChanges: { saved: ['meters/gpu-util'], unsaved: [] },
    });
    expect(await eventKeys(to)).toEqual([]); // a preview changes nothing
    expect(await applyImport(text, to)).toMatchObject({ ok: true, applied: true, added: 7 });
    expect(await eventKeys(to)).toEqual(await eventKeys(from));
    expect((await loadProgress(to)).savedCardIds).toEqual(['meters/gpu-util']);
  });

  test('importing the same file twice changes nothing the second time', async () => {
    const from = await storeWith(5);
    const { text } = await exportBackup(T0, from);
    const to = await storeWith(3);
    await applyImport(text, to);
    const once = await rawAll(to);
    expect(await applyImport(text, to)).toMatchObject({ ok: true, added: 0, alreadyStored: 5 });
    expect(await rawAll(to)).toEqual(once);
    expect((await loadProgress(to)).answers).toHaveLength(8);
  });

  test('an older backup never undoes a newer save or replaces a stored record', async () => {
    const store = await storeWith(1);
    await toggleSaved({ cardId: 'meters/a', at: T0 }, store); // saved
    const { text: old } = await exportBackup(T0, store);
    await toggleSaved({ cardId: 'meters/a', at: T0 + 60_000 }, store); // unsaved later
    const tampered = JSON.parse(old) as { events: { type: string; correct?: boolean }[] };
    tampered.events.filter((e) => e.type === 'answer').forEach((e) => (e.correct = !e.correct));
    const before = await rawAll(store);
    expect(await applyImport(JSON.stringify(tampered), store)).toMatchObject({
      ok: true,
      added: 0,
      savedChanges: { saved: [], unsaved: [] },
    });
    expect(await rawAll(store)).toEqual(before);
    expect((await loadProgress(store)).savedCardIds).toEqual([]);
  });
});

describe('refusing bad files', () => {
  const valid = (events: unknown[] = []) => ({ format: BACKUP_FORMAT, version: 1, exportedAt: T0, events });
  const ev = {
    id: `${T0}-abcd1234`,
    at: T0,
    tz: 'Europe/Berlin',
    offsetMin: 60,
    type: 'card-read',
    cardId: 'meters/a',
    topic: 'meters',
  };
  const cases: [string, string, RegExp][] = [
    ['not JSON', 'hello {', /not JSON/],
    ['JSON but not a backup', '[1,2,3]', /not a Saturate backup/],
    ['a newer version', JSON.stringify({ ...valid(), version: 2 }), /newer version.*Reload/],
    ['an unknown version', JSON.stringify({ ...valid(), version: 0 }), /version \(0\)/],
    ['a wrong shape', JSON.stringify(valid([{ ...ev, at: 'yesterday' }])), /damaged.*events\.0/],
    ['an unknown event type', JSON.stringify(valid([{ ...ev, type: 'rm-rf' }])), /damaged/],
    ['a very long string', JSON.stringify(valid([{ ...ev, cardId: 'x'.repeat(5000) }])), /5000 characters/],
    ['control characters', JSON.stringify(valid([{ ...ev, cardId: 'a\u0000b' }])), /control characters/],
    [
      'a __proto__ key',
      `{"format":"${BACKUP_FORMAT}","version":1,"exportedAt":1,"events":[],"__proto__":{"isAdmin":true}}`,
      /"__proto__"/,
    ],
    [
      'a nested constructor key',
      JSON.stringify(valid([{ ...ev, choice: { constructor: { prototype: 1 } } }])),
      /"constructor"/,
    ],
    ['deep nesting', JSON.stringify(valid([[[[[[[[1]]]]]]]])), /nesting/],
    ['two records with one id', JSON.stringify(valid([ev, { ...ev, cardId: 'meters/b' }])), /share the id/],
    ['over 32 MB', ' '.repeat(MAX_BACKUP_BYTES + 1), /larger than 32 MB/],
  ];
  test.each(cases)('refuses %s with a clear message and changes nothing', async (_name, text, message) => {
    const store = await storeWith(2);
    const before = await rawAll(store);
    const result = await applyImport(text, store);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    expect(await rawAll(store)).toEqual(before);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  test('refuses a 50 MB file before parsing it, saying why', () => {
    expect(MAX_BACKUP_BYTES).toBe(32 * 1024 * 1024);
    expect(parseBackup('x'.repeat(50 * 1024 * 1024))).toMatchObject({
      ok: false,
      code: 'too-large',
      message: expect.stringMatching(/larger than 32 MB/),
    });
  });

  test("accepts a heavy learner's own export (50,000 answers, ~11.4 MB)", () => {
    const events = makeAnswerEvents(50_000);
    const text = backupToText(createBackup(events, T0));
    expect(text.length).toBeGreaterThan(10 * 1024 * 1024);
    const parsed = parseBackup(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.file.events).toHaveLength(50_000);
  });

  test('names the damaged event and field of a refused file', () => {
    const events = makeAnswerEvents(3);
    const text = backupToText(
      createBackup([events[0]!, { ...events[1]!, correct: 'yes' } as unknown as ProgressEvent, events[2]!], T0),
    );
    expect(parseBackup(text)).toMatchObject({
      ok: false,
      code: 'wrong-shape',
      message: expect.stringMatching(/events\.1\.correct/),
    });
  });

  test('property: no string makes the parser throw', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => void parseBackup(s)),
      { numRuns: 500, seed: 31 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void parseBackup(JSON.stringify(v))),
      { numRuns: 500, seed: 32 },
    );
  });

  test('a version that cannot be printed (found by fast-check) is refused, not thrown', () => {
    const r = parseBackup(
      JSON.stringify({ format: BACKUP_FORMAT, version: { toString: null }, exportedAt: T0, events: [{}] }),
    );
    expect(r).toMatchObject({ ok: false, code: 'wrong-version' });
    if (!r.ok) expect(r.message).toMatch(/version \(object\)/);
  });

  test('property: a backup-shaped file with hostile values never throws and never changes the store', async () => {
    const store = await storeWith(3);
    const before = await rawAll(store);
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('__proto__', 'constructor', 'x'.repeat(2000), '\u0007', '\u202e'),
      fc.jsonValue({ maxDepth: 3 }),
    );
    const eventLike = fc.dictionary(
      fc.oneof(
        fc.constantFrom('id', 'at', 'tz', 'type', 'cardId', '__proto__', 'constructor'),
        fc.string({ maxLength: 8 }),
      ),
      hostile,
      { maxKeys: 8 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventLike, { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.constant(1), hostile),
        async (events, version) => {
          const text = JSON.stringify({ format: BACKUP_FORMAT, version, exportedAt: T0, events });
          const result = await applyImport(text, store);
          expect(result.ok).toBe(false);
        },
      ),
      // Fixed seed: CI stays deterministic (this one once found { version: { toString: null } }).
      { numRuns: 300, seed: 20261130 },
    );
    expect(await rawAll(store)).toEqual(before);
  });
});
