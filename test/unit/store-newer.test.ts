/**
 * Issue #20, failure 3: databases and backups from a newer release are read forward-compatibly:
 * unknown fields are kept, not fatal; a newer `schemaVersion` opens read-only with the "newer
 * version" note, and no record of it is rewritten, quarantined or deleted.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { answer, freshStore, rawAll, T0, trackedOpener } from './store-helpers.ts';
import { applyImport, loadProgress, recordAnswer, type UseStore } from '../../src/store/progress.ts';
import { idbBackend } from '../../src/store/backend.ts';
import { BACKUP_FORMAT, backupToText, createBackup, parseBackup } from '../../src/lib/backup.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const { open, closeAll } = trackedOpener();
afterEach(async () => {
  await closeAll();
});
type Answer = ReturnType<typeof makeAnswerEvents>[number];
const [e1, e2, e3] = makeAnswerEvents(3) as [Answer, Answer, Answer];
const seed = (s: UseStore, records: [string, unknown][]) => idbBackend(s).write(records);

describe('a database with fields this release does not know', () => {
  test('an extra field in meta is kept: nothing quarantined, meta never rewritten or lost', async () => {
    const { store } = freshStore();
    const meta = { schemaVersion: 2, syncedAt: 123, persistRequestedAt: T0 };
    await seed(store, [
      ['meta', meta],
      [`e:${e1.id}`, e1],
    ]);
    const s = (await open(store)).snapshot();
    expect(s).toMatchObject({ persistent: true, notSaved: null, quarantined: [] });
    await recordAnswer(answer(1), store);
    const after = new Map(await rawAll(store));
    expect(after.get('meta')).toEqual(meta);
    expect([...after.keys()].filter((k) => k.startsWith('q:'))).toEqual([]);
    expect((await loadProgress(store)).answers).toHaveLength(2);
  });

  test('an event with an extra field (from a newer release) counts and is kept as it is', async () => {
    const { store } = freshStore();
    const withHint = { ...e1, hintShown: true };
    await seed(store, [
      ['meta', { schemaVersion: 2 }],
      [`e:${e1.id}`, withHint],
    ]);
    const s = (await open(store)).snapshot();
    expect(s.quarantined).toEqual([]);
    expect(s.answers[0]).toEqual(withHint);
    expect(new Map(await rawAll(store)).get(`e:${e1.id}`)).toEqual(withHint);
  });

  test('a damaged meta of this version is quarantined and replaced, never left missing', async () => {
    const { store } = freshStore();
    await seed(store, [['meta', { schemaVersion: 2, persistGranted: 'yes' }]]);
    const s = (await open(store)).snapshot();
    expect(s.quarantined.map((q) => q.key)).toEqual(['meta']);
    const after = new Map(await rawAll(store));
    expect(after.get('meta')).toMatchObject({ schemaVersion: 2 });
    expect(after.has('q:meta')).toBe(true);
  });

  test('a record with a __proto__ field is still quarantined', async () => {
    const { store } = freshStore();
    await seed(store, [[`e:${e1.id}`, JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(e1).slice(1)}`)]]);
    const s = (await open(store)).snapshot();
    expect(s.answers).toEqual([]);
    expect(s.quarantined[0]).toMatchObject({ key: `e:${e1.id}`, reason: expect.stringMatching(/__proto__/) });
  });
});

describe('a database from a newer release', () => {
  test('opens read-only with the newer-version note; no record is rewritten, quarantined or deleted', async () => {
    const { store } = freshStore();
    const records: [string, unknown][] = [
      ['meta', { schemaVersion: 3, persistGranted: 'granted-v3', syncedAt: 1 }],
      [`e:${e1.id}`, { ...e1, hintShown: true }],
      [`e:${e2.id}`, { id: e2.id, at: e2.at, tz: e2.tz, offsetMin: 120, type: 'hint', questionId: 'q' }],
      [`c:${e3.id}~${e3.id}`, [e3, { weird: true }]],
      ['v3:index', { anything: 1 }],
    ];
    await seed(store, records);
    const before = await rawAll(store);
    const s = (await open(store)).snapshot();
    expect(s).toMatchObject({ persistent: false, schemaVersion: 3, quarantined: [] });
    expect(s.notSaved?.reason).toBe('newer-version');
    expect(s.notSaved?.message).toMatch(/newer version of Saturate.*Reload/);
    expect(s.answers.map((a) => a.id)).toEqual([e1.id, e3.id]);
    await recordAnswer(answer(1), store); // kept in this tab, not written into the newer database
    expect((await loadProgress(store)).answers).toHaveLength(3);
    expect(await rawAll(store)).toEqual(before);
  });
});

describe('a backup from a newer release', () => {
  const valid = (events: unknown[]) => ({ format: BACKUP_FORMAT, version: 1, exportedAt: T0, events });

  test('one extra top-level field: imported, not called damaged', async () => {
    const r = parseBackup(JSON.stringify({ ...valid([e1]), device: 'phone' }));
    expect(r).toMatchObject({ ok: true, file: { events: [e1] } });
  });

  test('events with an extra field are imported with that field kept', async () => {
    const { store } = freshStore();
    await open(store);
    const text = backupToText(createBackup([{ ...e1, hintShown: true } as typeof e1], T0));
    expect(await applyImport(text, store)).toMatchObject({ applied: true, added: 1 });
    expect(new Map(await rawAll(store)).get(`e:${e1.id}`)).toMatchObject({ hintShown: true });
  });

  test('a newer file version is refused, nothing changed, with what to do', () => {
    expect(parseBackup(JSON.stringify({ ...valid([e1]), version: 2 }))).toMatchObject({
      ok: false,
      code: 'wrong-version',
      message: expect.stringMatching(/newer version of Saturate.*Reload the site to update, then import again/),
    });
  });
});
