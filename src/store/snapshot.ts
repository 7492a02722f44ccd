/**
 * What the open store shows pages (the snapshot), how it is opened (options) and what its "not
 * saved" note says. Types and text only; the machinery is in handle.ts.
 */
import type { Schedule } from '../lib/review.ts';
import type { ImportPreview, ImportRefusal } from '../lib/backup.ts';
import type { AnswerEvent, ProgressEvent, QuarantinedRecord } from '../schemas/progress-event.ts';
import type { TabStorage } from './memory.ts';
import type { UnwrittenLedger } from './unwritten.ts';

export type NotSavedReason = 'unavailable' | 'blocked' | 'write-failed' | 'newer-version';

/** How long progress kept in memory lasts: the tab (sessionStorage: memory.ts) or only this page. */
export type KeptFor = 'tab' | 'page';

/** Everything a page shows, derived from the validated log. Immutable; a new one after each change. */
export interface ProgressSnapshot {
  schemaVersion: number;
  /** False when progress lives only in this tab's memory (see `notSaved`). */
  persistent: boolean;
  /** Why progress is not being saved, for a banner; null when it is. */
  notSaved: { reason: NotSavedReason; message: string; keptFor: KeptFor } | null;
  /** Every valid event, sorted by (at, id). */
  events: readonly ProgressEvent[];
  /** Answers that count (undone ones removed), sorted. */
  answers: readonly AnswerEvent[];
  /** Saved cards, most recently saved first. */
  savedCardIds: readonly string[];
  /** Cards read to the end at least once. */
  readCardIds: ReadonlySet<string>;
  /** Records that failed validation, kept under `q:<key>`, for the progress page. */
  quarantined: readonly QuarantinedRecord[];
  /** The FSRS state of every answered question. */
  schedule: Schedule;
  /** At least one day that counts toward a streak. */
  hasRealProgress: boolean;
  /** What `navigator.storage.persist()` answered; null before asking. */
  persistGranted: boolean | null;
}

export interface StorageManagerLike {
  persist?: () => Promise<boolean>;
  persisted?: () => Promise<boolean>;
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
}

export interface OpenOptions {
  /**
   * Give up on a blocked IndexedDB and keep progress in memory after this long (default 5000), plus
   * `openTimeoutMsPerRecord` for each stored record: a slow device reading a long log is still
   * loading (the pages say so), not blocked.
   */
  openTimeoutMs?: number;
  /** Extra open time per stored record (default 2 ms: 20,000 records → 45 s in all). */
  openTimeoutMsPerRecord?: number;
  /** Where the memory fallback keeps records for the tab (default sessionStorage; null: this page only). */
  tabStorage?: TabStorage | null;
  /** `navigator.storage` by default; tests pass a fake or null. */
  storage?: StorageManagerLike | null;
  /** The clock for housekeeping stamps (quarantine, migration); default Date.now. */
  clock?: () => number;
  /** The device's zone name, for migrating v1 records; default from Intl. */
  tz?: string;
  /** Join the other tabs' channel (default true). */
  tabs?: boolean;
  /** The BroadcastChannel name (default 'saturate-progress'; tests isolate with their own). */
  channelName?: string;
  /**
   * Where appended records are noted until stored, and kept for the next page if this one goes away first
   * (src/store/unwritten.ts; default: the page's `pageLedger()`, none outside a browser; null: none).
   */
  ledger?: UnwrittenLedger | null;
}

export type ImportResult = (ImportPreview & { applied: true }) | ImportRefusal;

/** What the "not saved" note says, when memory lasts for the tab (sessionStorage works). */
export const NOT_SAVED_MESSAGES: Record<NotSavedReason, string> = {
  unavailable:
    'This browser is not letting Saturate store data (private browsing or blocked site data), so your progress lasts only until you close this tab.',
  blocked:
    'Storage did not answer, so your progress is kept only until you close this tab. Closing other Saturate tabs and reloading may help.',
  'write-failed':
    'Saving failed, so progress from now on is kept only until you close this tab. Export a backup to keep it.',
  'newer-version':
    'Your progress was saved by a newer version of Saturate. Reload the page to update; until then nothing new is saved.',
};

/**
 * The note's text: why, and for how long progress lasts. Kept for the page only (no sessionStorage
 * either), it says so and points to the Export button the note then shows.
 */
export function notSavedMessage(reason: NotSavedReason, keptFor: KeptFor, err?: unknown): string {
  const full = err instanceof Error && err.name === 'QuotaExceededError';
  const tab = full
    ? 'Storage on this device is full, so new progress is kept only until you close this tab. Free some space or export a backup.'
    : NOT_SAVED_MESSAGES[reason];
  if (keptFor === 'tab') return tab;
  return `${tab.replace(/ until you close this tab| until then nothing new is saved/, '').replace(/\.$/, '')}. This browser will not keep it past this page either: export a backup now (the Export button here) to keep it.`;
}

/** A recorded event that does not validate (a bug in the emitter). */
export class ProgressRecordError extends Error {
  constructor(issues: string) {
    super(
      `Progress not recorded: the event is malformed (${issues}). Fix the emitter to send the fields in src/lib/events.ts.`,
    );
    this.name = 'ProgressRecordError';
  }
}
