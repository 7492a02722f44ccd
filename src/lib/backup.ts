/**
 * Backup files: export, parse (refusing bad or hostile files with a message a learner can act on),
 * preview and merge. Pure: the store does the reading and writing.
 *
 * File format, version 1 (JSON):
 *   { "format": "saturate-progress", "version": 1, "exportedAt": <epoch ms>, "events": [ProgressEvent...] }
 * Merge is a union by event id: an id already stored keeps the stored record (importing never
 * replaces data), so importing the same file twice changes nothing. Saved/unsaved is decided by the
 * newest event per card, so an old backup cannot undo a newer save or unsave.
 */
import * as z from 'zod/mini';
import { MAX_BACKUP_BYTES } from './backup-limits.ts';
import {
  compareEvents,
  describeIssues,
  type ProgressEvent,
  type ProgressEventType,
} from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';

export const BACKUP_FORMAT = 'saturate-progress';
export const BACKUP_VERSION = 1;
/** Files above this are refused before parsing (src/lib/backup-limits.ts says why 32 MB). */
export { MAX_BACKUP_BYTES };
/** Most events a backup may hold. */
export const MAX_BACKUP_EVENTS = 2_000_000;
const MAX_STRING = 1_000;
const MAX_DEPTH = 6;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The file's envelope; each of `events` is then checked with `parseEvent` (src/schemas/parse-event.ts).
 * Loose: a field a newer release added at the top is ignored (the version says whether the file can
 * be read at all), and an event's unknown fields are kept.
 */
export const BackupEnvelopeSchema = z.looseObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  exportedAt: z.int().check(z.minimum(0)),
  events: z.array(z.unknown()).check(z.maxLength(MAX_BACKUP_EVENTS)),
});
/** A backup whose every event validated. */
export interface BackupFile {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  exportedAt: number;
  events: ProgressEvent[];
}

export type RefusalCode =
  'too-large' | 'not-json' | 'hostile' | 'not-a-backup' | 'wrong-version' | 'wrong-shape' | 'conflicting-duplicates';

/** A refused file: nothing was changed. */
export interface ImportRefusal {
  ok: false;
  code: RefusalCode;
  /** Says what is wrong and what to do, for the learner. */
  message: string;
}

export type ParseResult = { ok: true; file: BackupFile } | ImportRefusal;

/** The backup of a sorted log. */
export function createBackup(events: readonly ProgressEvent[], now: number): BackupFile {
  return { format: BACKUP_FORMAT, version: BACKUP_VERSION, exportedAt: now, events: [...events] };
}

/** The file's text: one event per line, so a backup is readable and diffable. */
export function backupToText(file: BackupFile): string {
  const head = JSON.stringify({ format: file.format, version: file.version, exportedAt: file.exportedAt });
  const lines = file.events.map((e) => JSON.stringify(e)).join(',\n');
  return `${head.slice(0, -1)},"events":[\n${lines}\n]}\n`;
}

/** A file name for downloads, e.g. "saturate-progress-2026-03-29.json". */
export function backupFileName(now: number): string {
  return `saturate-progress-${new Date(now).toISOString().slice(0, 10)}.json`;
}

const refuse = (code: RefusalCode, message: string): ImportRefusal => ({ ok: false, code, message });

/** Finds the first hostile thing in parsed JSON: deep nesting, huge or control-character strings, prototype keys. */
function findHostile(root: unknown): string | null {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.length > MAX_STRING) return `a text of ${v.length} characters (at most ${MAX_STRING})`;
      if (CONTROL.test(v)) return 'a text with control characters';
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_DEPTH) return 'nesting deeper than a backup has';
      for (const k of Object.keys(v)) {
        if (FORBIDDEN_KEYS.has(k)) return `the key "${k}"`;
        if (k.length > 64 || CONTROL.test(k)) return 'a malformed key';
        stack.push([(v as Record<string, unknown>)[k], depth + 1]);
      }
    }
  }
  return null;
}

/** UTF-8 size of a string, without encoding it. */
function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4; // a surrogate pair: one 4-byte character for two UTF-16 units
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Reads a backup file's text. Never throws: a bad file gives `{ ok: false, code, message }`.
 * Check `File.size` against `MAX_BACKUP_BYTES` before reading a file into a string.
 */
export function parseBackup(text: unknown): ParseResult {
  if (typeof text !== 'string')
    return refuse('not-json', 'This is not a Saturate backup: the file could not be read as text.');
  if (text.length > MAX_BACKUP_BYTES || utf8Bytes(text) > MAX_BACKUP_BYTES) {
    return refuse(
      'too-large',
      `This file is larger than ${MAX_BACKUP_BYTES / 1024 / 1024} MB, so it is not a Saturate backup. Pick the file Saturate exported.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return refuse(
      'not-json',
      'This file is not a Saturate backup (it is not JSON). Pick the .json file Saturate exported.',
    );
  }
  const hostile = findHostile(data);
  if (hostile)
    return refuse('hostile', `This file contains ${hostile}, which a Saturate backup never has. Nothing was imported.`);
  if (
    data === null ||
    typeof data !== 'object' ||
    Array.isArray(data) ||
    (data as { format?: unknown }).format !== BACKUP_FORMAT
  ) {
    return refuse('not-a-backup', 'This JSON file is not a Saturate backup. Pick the file Saturate exported.');
  }
  const version = (data as { version?: unknown }).version;
  if (version !== BACKUP_VERSION) {
    const newer = typeof version === 'number' && version > BACKUP_VERSION;
    return refuse(
      'wrong-version',
      newer
        ? `This backup was made by a newer version of Saturate (file version ${version}). Reload the site to update, then import again.`
        : `This backup's version (${typeof version === 'number' || typeof version === 'string' ? String(version).slice(0, 40) : typeof version}) is not one Saturate can read (expected ${BACKUP_VERSION}).`,
    );
  }
  const parsed = BackupEnvelopeSchema.safeParse(data);
  if (!parsed.success)
    return refuse('wrong-shape', `This backup is damaged and was not imported (${describeIssues(parsed.error)}).`);
  const events: ProgressEvent[] = [];
  for (let i = 0; i < parsed.data.events.length; i++) {
    const e = parseEvent(parsed.data.events[i]);
    if (!e.success) {
      const issues = e.error.issues.map((x) => ({ ...x, path: ['events', i, ...x.path] }));
      return refuse('wrong-shape', `This backup is damaged and was not imported (${describeIssues({ issues })}).`);
    }
    events.push(e.data);
  }
  const seen = new Map<string, string>();
  for (const e of events) {
    const json = JSON.stringify(e);
    const prev = seen.get(e.id);
    if (prev !== undefined && prev !== json)
      return refuse(
        'conflicting-duplicates',
        `This backup is damaged: two different records share the id ${e.id}. Nothing was imported.`,
      );
    seen.set(e.id, json);
  }
  return {
    ok: true,
    file: { format: BACKUP_FORMAT, version: BACKUP_VERSION, exportedAt: parsed.data.exportedAt, events },
  };
}

/** What an import would change. */
export interface ImportPreview {
  ok: true;
  /** Events in the file. */
  inFile: number;
  /** Events that would be added (not already stored). */
  added: number;
  /** Events already stored (skipped). */
  alreadyStored: number;
  /** New events per type. */
  addedByType: Partial<Record<ProgressEventType, number>>;
  /** Cards whose saved state would change, given newest-wins. */
  savedChanges: { saved: string[]; unsaved: string[] };
  /** Time range of the new events (epoch ms), or null when nothing is new. */
  range: { from: number; to: number } | null;
}

/** Newest saved state per card. */
export function savedState(events: readonly ProgressEvent[]): Map<string, { saved: boolean; at: number; id: string }> {
  const m = new Map<string, { saved: boolean; at: number; id: string }>();
  for (const e of events) {
    if (e.type !== 'saved') continue;
    const cur = m.get(e.cardId);
    if (!cur || compareEvents(e, cur) > 0) m.set(e.cardId, { saved: e.saved, at: e.at, id: e.id });
  }
  return m;
}

/** The events of `incoming` whose ids `existing` lacks, deduplicated, sorted. */
export function newEvents(existingIds: ReadonlySet<string>, incoming: readonly ProgressEvent[]): ProgressEvent[] {
  const out = new Map<string, ProgressEvent>();
  for (const e of incoming) if (!existingIds.has(e.id) && !out.has(e.id)) out.set(e.id, e);
  return [...out.values()].sort(compareEvents);
}

/** Previews merging `file` into the sorted log `existing`. */
export function previewMerge(existing: readonly ProgressEvent[], file: BackupFile): ImportPreview {
  const ids = new Set(existing.map((e) => e.id));
  const added = newEvents(ids, file.events);
  const addedByType: Partial<Record<ProgressEventType, number>> = {};
  for (const e of added) addedByType[e.type] = (addedByType[e.type] ?? 0) + 1;
  const before = savedState(existing);
  const after = savedState([...existing, ...added]);
  const savedChanges = { saved: [] as string[], unsaved: [] as string[] };
  for (const [card, s] of after) {
    const was = before.get(card)?.saved ?? false;
    if (s.saved !== was) (s.saved ? savedChanges.saved : savedChanges.unsaved).push(card);
  }
  return {
    ok: true,
    inFile: file.events.length,
    added: added.length,
    alreadyStored: file.events.length - added.length,
    addedByType,
    savedChanges,
    range: added.length ? { from: added[0]!.at, to: added.at(-1)!.at } : null,
  };
}
