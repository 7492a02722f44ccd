/**
 * The open progress store: the in-memory log, its backend, and the tab channel. See progress.ts
 * for the stored shape, lifecycle and migrations; this file is the machinery.
 */
import { activeAnswers, buildSchedule, type Schedule } from '../lib/review.ts';
import { activeDays } from '../lib/streak.ts';
import { withTimeout } from '../lib/timeout.ts';
import {
  backupFileName,
  backupToText,
  createBackup,
  newEvents,
  parseBackup,
  previewMerge,
  savedState,
  type BackupFile,
  type ImportPreview,
  type ImportRefusal,
} from '../lib/backup.ts';
import { CACHE_KEY, scheduleFromCache, scheduleToCache } from './cache.ts';
import { compaction } from './chunks.ts';
import { readRecords } from './read.ts';
import { deviceZoneName, eventKey } from './record.ts';
import type { Backend } from './kv.ts';
import { CURRENT_SCHEMA_VERSION } from './migrations.ts';
import {
  compareEvents,
  describeIssues,
  type AnswerEvent,
  type Meta,
  type ProgressEvent,
  type QuarantinedRecord,
} from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';
import { joinTabs, type TabSync } from './sync.ts';
import { measure, nowMs } from './timing.ts';

export type NotSavedReason = 'unavailable' | 'blocked' | 'write-failed' | 'newer-version';

/** Everything a page shows, derived from the validated log. Immutable; a new one after each change. */
export interface ProgressSnapshot {
  schemaVersion: number;
  /** False when progress lives only in this tab's memory (see `notSaved`). */
  persistent: boolean;
  /** Why progress is not being saved, for a banner; null when it is. */
  notSaved: { reason: NotSavedReason; message: string } | null;
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
  /** Give up on a blocked IndexedDB after this long and keep progress in memory (default 5000). */
  openTimeoutMs?: number;
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
}

export type ImportResult = (ImportPreview & { applied: true }) | ImportRefusal;

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

export { eventKey };

/** The open store. Create with `openProgress()` (progress.ts). */
export class Progress {
  private events: ProgressEvent[] = [];
  private ids = new Set<string>();
  private quarantined: QuarantinedRecord[] = [];
  private schedule: Schedule = buildSchedule([]);
  private meta: Meta = { schemaVersion: CURRENT_SCHEMA_VERSION };
  private notSaved: ProgressSnapshot['notSaved'] = null;
  private listeners = new Set<(s: ProgressSnapshot) => void>();
  private memo: ProgressSnapshot | null = null;
  private tabs: TabSync | null = null;
  private backend: Backend;
  private readonly storage: StorageManagerLike | null;
  private readonly clock: () => number;
  private readonly tz: string;

  private readonly options: OpenOptions;

  constructor(backend: Backend, options: OpenOptions = {}) {
    this.backend = backend;
    this.options = options;
    this.storage = options.storage !== undefined ? options.storage : (globalThis.navigator?.storage ?? null);
    this.clock = options.clock ?? Date.now;
    this.tz = options.tz ?? deviceZoneName();
  }

  /** Reads, validates, quarantines and migrates; falls back to memory when storage fails. */
  async load(): Promise<void> {
    let entries: [string, unknown][];
    let t = nowMs();
    try {
      entries = await withTimeout(
        this.backend.readAll(),
        this.options.openTimeoutMs ?? 5000,
        () => new TimeoutError('timed out'),
      );
    } catch (err) {
      this.toMemory(err instanceof TimeoutError ? 'blocked' : 'unavailable');
      entries = [];
    }
    measure('saturate:open-read', t);
    t = nowMs();
    const r = readRecords(entries, this.clock, this.tz);
    const { events, singles, puts, dels, meta, newer, cacheRaw } = r;
    this.quarantined.push(...r.quarantined);
    if (meta.success) this.meta = meta.data;
    if (newer) this.toMemory('newer-version');
    else if (!meta.success || meta.data.schemaVersion < CURRENT_SCHEMA_VERSION) {
      this.meta = { ...(meta.success ? meta.data : {}), schemaVersion: CURRENT_SCHEMA_VERSION };
      puts.push(['meta', this.meta]);
    }
    measure('saturate:open-validate', t);
    if (puts.length || dels.length) await this.write(puts, dels);
    if (!newer && this.backend.persistent && !this.notSaved) {
      const c = compaction(singles.sort(compareEvents), eventKey);
      if (c.puts.length) void this.write(c.puts, c.dels, true); // quiet: a failed compaction changes nothing
    }
    t = nowMs();
    this.setEvents(events.sort(compareEvents));
    const cached = scheduleFromCache(cacheRaw, this.events);
    this.schedule = buildSchedule(this.events, cached);
    if (this.schedule.foldedCount !== cached?.foldedCount && this.events.length) {
      void this.write([[CACHE_KEY, scheduleToCache(this.schedule, this.events)]], [], true);
    }
    measure('saturate:open-schedule', t);
    if (this.options.tabs !== false && !this.tabs) {
      this.tabs = joinTabs(
        (e) => this.merge(e),
        () => void this.reload(),
        this.options.channelName,
      );
    }
    this.memo = null;
  }

  /** The current snapshot (cached until the next change). */
  snapshot(): ProgressSnapshot {
    if (this.memo) return this.memo;
    const saved = [...savedState(this.events)].filter(([, s]) => s.saved).sort((a, b) => compareEvents(b[1], a[1]));
    const readCardIds = new Set<string>();
    for (const e of this.events) if (e.type === 'card-read') readCardIds.add(e.cardId);
    const answers = activeAnswers(this.events);
    this.memo = {
      schemaVersion: this.meta.schemaVersion,
      persistent: this.backend.persistent && !this.notSaved,
      notSaved: this.notSaved,
      events: this.events,
      answers,
      savedCardIds: saved.map(([id]) => id),
      readCardIds,
      quarantined: [...this.quarantined],
      schedule: this.schedule,
      hasRealProgress: readCardIds.size > 0 || activeDays(answers).length > 0,
      persistGranted: this.meta.persistGranted ?? null,
    };
    return this.memo;
  }

  /** Validates and appends new events (ids already stored are skipped), then tells everyone. */
  async append(candidates: readonly unknown[]): Promise<ProgressEvent[]> {
    const fresh: ProgressEvent[] = [];
    for (const c of candidates) {
      const e = parseEvent(c);
      if (!e.success) throw new ProgressRecordError(describeIssues(e.error));
      if (!this.ids.has(e.data.id)) fresh.push(e.data);
    }
    if (!fresh.length) return [];
    this.merge(fresh);
    await this.write(fresh.map((e) => [eventKey(e.id), e]));
    this.tabs?.events(fresh);
    void this.maybePersist();
    return fresh;
  }

  /** Export: the whole log as a versioned file. */
  exportBackup(now: number): { fileName: string; text: string; file: BackupFile } {
    const file = createBackup(this.events, now);
    return { fileName: backupFileName(now), text: backupToText(file), file };
  }

  previewImport(text: unknown): ImportPreview | ImportRefusal {
    const parsed = parseBackup(text);
    return parsed.ok ? previewMerge(this.events, parsed.file) : parsed;
  }

  /** Merges a backup (union by id; stored records win). A refused file changes nothing. */
  async applyImport(text: unknown): Promise<ImportResult> {
    const parsed = parseBackup(text);
    if (!parsed.ok) return parsed;
    const preview = previewMerge(this.events, parsed.file);
    const added = newEvents(this.ids, parsed.file.events);
    if (added.length) {
      // A large import goes straight into chunks (its ids are new, so no tab writes the same keys),
      // rather than as single records that the next open would have to read and compact.
      const sorted = [...added].sort(compareEvents);
      const { puts } = compaction(sorted, eventKey);
      await this.write(puts.length ? puts : sorted.map((e) => [eventKey(e.id), e]));
      this.merge(added);
      this.tabs?.reload();
      void this.maybePersist();
    }
    return { ...preview, applied: true };
  }

  /** Re-reads everything from storage (another tab changed it). */
  async reload(): Promise<void> {
    if (!this.backend.persistent || this.notSaved) return;
    this.quarantined = [];
    await this.load();
    this.emit();
  }

  async estimate(): Promise<{ usageBytes: number; quotaBytes: number } | null> {
    try {
      const e = await this.storage?.estimate?.();
      return e ? { usageBytes: e.usage ?? 0, quotaBytes: e.quota ?? 0 } : null;
    } catch {
      return null;
    }
  }

  subscribe(fn: (s: ProgressSnapshot) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    this.tabs?.close();
    this.tabs = null;
    this.listeners.clear();
  }

  /** Merges events already stored elsewhere (another tab) or just validated here. */
  private merge(incoming: readonly ProgressEvent[]): void {
    let sorted = true;
    for (const e of incoming) {
      if (this.ids.has(e.id)) continue;
      const last = this.events.at(-1);
      if (last && compareEvents(last, e) > 0) sorted = false;
      this.events.push(e);
      this.ids.add(e.id);
    }
    if (!sorted) this.events.sort(compareEvents);
    this.events = [...this.events]; // a new array per change: snapshots stay immutable
    this.schedule = buildSchedule(this.events, this.schedule);
    this.memo = null;
    this.emit();
  }

  private setEvents(events: ProgressEvent[]): void {
    this.events = events;
    this.ids = new Set(events.map((e) => e.id));
    this.memo = null;
  }

  private emit(): void {
    const s = this.snapshot();
    for (const fn of this.listeners) fn(s);
  }

  private async write(
    puts: readonly (readonly [string, unknown])[],
    dels: readonly string[] = [],
    quiet = false,
  ): Promise<void> {
    try {
      await this.backend.write(puts, dels);
    } catch (err) {
      if (quiet) return;
      this.toMemory('write-failed', err);
      await this.backend.write(puts, dels);
    }
  }

  private toMemory(reason: NotSavedReason, err?: unknown): void {
    this.backend = memoryBackend();
    const full = err instanceof Error && err.name === 'QuotaExceededError';
    this.notSaved = {
      reason,
      message: full
        ? 'Storage on this device is full, so new progress is kept only until you close this tab. Free some space or export a backup.'
        : NOT_SAVED_MESSAGES[reason],
    };
    this.memo = null;
    this.emit();
  }

  /** Asks once, when the learner first has a day that counts, for storage the browser will not evict. */
  private async maybePersist(): Promise<void> {
    if (
      this.meta.persistRequestedAt !== undefined ||
      !this.storage?.persist ||
      !this.backend.persistent ||
      this.notSaved
    )
      return;
    if (!this.snapshot().hasRealProgress) return;
    this.meta = { ...this.meta, persistRequestedAt: this.clock() };
    let granted = false;
    try {
      granted = (await this.storage.persisted?.()) || (await this.storage.persist());
    } catch {
      granted = false;
    }
    this.meta = { ...this.meta, persistGranted: granted };
    await this.write([['meta', this.meta]], [], true);
    this.memo = null;
    this.emit();
  }
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

class TimeoutError extends Error {}

export { deviceZoneName };

/** Helper for tests and the store: is this answer the newest one that still counts? */
export function lastActiveAnswer(events: readonly ProgressEvent[]): AnswerEvent | null {
  const undone = new Set<string>();
  for (const e of events) if (e.type === 'undo') undone.add(e.targetId);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'answer' && !undone.has(e.id)) return e;
  }
  return null;
}

/** The backend in a Map, used when IndexedDB is unavailable (private mode, blocked storage) so the app keeps working for the session. */
export function memoryBackend(initial: Iterable<readonly [string, unknown]> = []): Backend {
  const map = new Map<string, unknown>(initial);
  return {
    persistent: false,
    readAll: async () => [...map.entries()],
    write: async (puts, dels = []) => {
      for (const k of dels) map.delete(k);
      for (const [k, v] of puts) map.set(k, structuredClone(v));
    },
  };
}
