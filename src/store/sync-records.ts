/**
 * The last-writer-wins records that sync carries besides the event log (src/lib/sync/plan.ts): the daily rhythm
 * (`rhythm`, rhythm.ts) and each quiz in progress (`quiz:<quiz id>`, quiz-saves.ts). Reads them as key → value,
 * and writes a winning version from another device back where it lives, validated first: a version that fails its
 * check is skipped, nothing here is overwritten with it.
 */
import type { UseStore } from 'idb-keyval';
import { loadRhythm, saveRhythm, type RhythmStorage } from './rhythm.ts';
import { clearQuizSave, listQuizSaves, quizSaveStore, saveQuiz } from './quiz-saves.ts';
import { parseRhythm } from '../lib/rhythm.ts';
import { parseQuizSave } from '../schemas/quiz-save.ts';
import type { RecordVersion } from '../lib/sync/items.ts';

export const RHYTHM_RECORD = 'rhythm';
export const QUIZ_RECORD_PREFIX = 'quiz:';

/** Where the records live; tests pass their own. */
export interface RecordStores {
  quizzes?: UseStore;
  rhythm?: RhythmStorage | null;
}

/** Every record on this device now, key → value. */
export async function localRecords(now: number, stores: RecordStores = {}): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  out.set(RHYTHM_RECORD, stores.rhythm === undefined ? loadRhythm(now) : loadRhythm(now, stores.rhythm));
  for (const save of await listQuizSaves(stores.quizzes ?? quizSaveStore()))
    out.set(QUIZ_RECORD_PREFIX + save.quizId, save);
  return out;
}

/** Writes winning versions here. Returns the keys skipped (unknown key, or a value that fails its check). */
export async function applyRecords(versions: readonly RecordVersion[], stores: RecordStores = {}): Promise<string[]> {
  const skipped: string[] = [];
  const quizzes = stores.quizzes ?? quizSaveStore();
  for (const v of versions) {
    if (v.key === RHYTHM_RECORD) {
      const r = v.deleted ? null : parseRhythm(JSON.stringify(v.value));
      if (!r) skipped.push(v.key);
      else if (stores.rhythm === undefined) saveRhythm(r);
      else saveRhythm(r, stores.rhythm);
    } else if (v.key.startsWith(QUIZ_RECORD_PREFIX)) {
      const quizId = v.key.slice(QUIZ_RECORD_PREFIX.length);
      if (v.deleted) await clearQuizSave(quizId, quizzes);
      else {
        const parsed = parseQuizSave(v.value);
        if (parsed.ok && parsed.save.quizId === quizId) await saveQuiz(parsed.save, quizzes);
        else skipped.push(v.key);
      }
    } else skipped.push(v.key);
  }
  return skipped;
}
