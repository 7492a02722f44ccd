/**
 * The open progress store: the in-memory log, its backend, and the tab channel. See progress.ts
 * for the stored shape, lifecycle and migrations; this file is the machinery.
 */
import { activeAnswers, buildSchedule, type Schedule } from '../lib/review.ts';
import { activeDays } from '../lib/streak.ts';
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
import { LOG_KEY, snapshotAfterOpen, snapshotReader } from './log-snapshot.ts';
import { readRecords } from './read.ts';
import { deviceZoneName } from './page-signals.ts';
import { eventKey } from './record.ts';
import { OpenTimeoutError, readAllWithin, type Backend } from './backend.ts';
import { CURRENT_SCHEMA_VERSION } from './migrations.ts';
import {
  compareEvents,
  describeIssues,
  type Meta,
  type ProgressEvent,
  type QuarantinedRecord,
} from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';
import { joinTabs, type TabSync } from './sync.ts';
import { measure, nowMs } from './timing.ts';
import { pageLedger, type UnwrittenLedger } from './unwritten.ts';

import {
  notSavedMessage,
  ProgressRecordError,
  type ImportResult,
  type NotSavedReason,
  type OpenOptions,
  type ProgressSnapshot,
  type StorageManagerLike,
} from './snapshot.ts';
import {
  clearTabRecords,
  memoryBackend,
  tabEvents,
  sessionTabStorage,
  tabBackend,
  type TabBackend,
  type TabStorage,
} from './memory.ts';

export type {
  ImportResult,
  KeptFor,
  NotSavedReason,
  OpenOptions,
  ProgressSnapshot,
  StorageManagerLike,
} from './snapshot.ts';
export { NOT_SAVED_MESSAGES } from './snapshot.ts';
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
  private readonly tabStorage: TabStorage | null;
  private readonly ledger: UnwrittenLedger | null;

  private readonly options: OpenOptions;

  constructor(backend: Backend, options: OpenOptions = {}) {
    this.backend = backend;
    this.options = options;
    this.storage = options.storage !== undefined ? options.storage : (globalThis.navigator?.storage ?? null);
    this.clock = options.clock ?? Date.now;
    this.tz = options.tz ?? deviceZoneName();
    this.tabStorage = options.tabStorage !== undefined ? options.tabStorage : sessionTabStorage();
    this.ledger = options.ledger !== undefined ? options.ledger : pageLedger();
  }

  /**
   * Reads, validates, quarantines and migrates; falls back to memory when storage fails. The open
   * timeout grows with the number of records (a slow device reading a long log is not "blocked").
   * Records an earlier page of this tab kept in memory (memory.ts) are read too, and written into
   * IndexedDB once it works again.
   */
  async load(): Promise<void> {
    let entries: [string, unknown][];
    let t = nowMs();
    // The log snapshot (log-snapshot.ts), when it can be trusted: its chunks are not read or validated again.
    const log = snapshotReader();
    try {
      const { openTimeoutMs, openTimeoutMsPerRecord } = this.options;
      entries = await readAllWithin(this.backend, openTimeoutMs, openTimeoutMsPerRecord, log);
    } catch (err) {
      this.toMemory(err instanceof OpenTimeoutError ? 'blocked' : 'unavailable');
      log.trusted = null;
      entries = await this.backend.readAll(); // what earlier pages of this tab kept
    }
    const fromStorage = this.backend.persistent;
    measure('saturate:open-read', t);
    t = nowMs();
    const r = readRecords(entries, this.clock, this.tz, log.trusted);
    const { events, singles, puts, dels, meta, newer, cacheRaw } = r;
    this.quarantined.push(...r.quarantined);
    if (meta.success) this.meta = meta.data;
    // Kept for this tab while storage failed on an earlier page: shown now, stored once it works.
    const fromTab = fromStorage ? tabEvents(this.tabStorage, events) : [];
    events.push(...fromTab);
    if (newer) this.toMemory('newer-version');
    else {
      puts.push(...fromTab.map((e): [string, unknown] => [eventKey(e.id), e]));
      if (!meta.success || meta.data.schemaVersion < CURRENT_SCHEMA_VERSION) {
        this.meta = { ...(meta.success ? meta.data : {}), schemaVersion: CURRENT_SCHEMA_VERSION };
        puts.push(['meta', this.meta]);
      }
    }
    measure('saturate:open-validate', t);
    if (puts.length || dels.length) await this.write(puts, dels);
    if (fromTab.length && this.backend.persistent && !this.notSaved) clearTabRecords(this.tabStorage);
    if (!newer && this.backend.persistent && !this.notSaved) {
      const c = compaction(singles.sort(compareEvents), eventKey);
      // Quiet: a failed compaction or snapshot changes nothing (log-snapshot.ts: one transaction for both).
      const snap = snapshotAfterOpen(
        r,
        log.trusted,
        c.puts.map(([k]) => k),
        singles,
      );
      const puts: [string, unknown][] = [...c.puts, ...(snap ? [[LOG_KEY, snap] as [string, unknown]] : [])];
      if (puts.length) void this.write(puts, c.dels, true);
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
    // Noted until stored: a page that goes away meanwhile keeps them for the next (unwritten.ts). Kept in memory
    // only (storage failed) they stay noted, so the next page tries IndexedDB again.
    this.ledger?.writing(fresh);
    await this.write(fresh.map((e) => [eventKey(e.id), e]));
    if (this.backend.persistent) this.ledger?.stored(fresh);
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
    // The tab's copy stopped fitting in sessionStorage: the note must now say "this page only".
    if (this.notSaved?.keptFor === 'tab' && !(this.backend as TabBackend).survivesPages)
      this.toMemory(this.notSaved.reason);
  }

  private toMemory(reason: NotSavedReason, err?: unknown): void {
    if (this.backend.persistent) this.backend = tabBackend(this.tabStorage);
    const keptFor = (this.backend as TabBackend).survivesPages ? 'tab' : 'page';
    this.notSaved = { reason, keptFor, message: notSavedMessage(reason, keptFor, err) };
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

export { ProgressRecordError };

export { deviceZoneName };

export { lastActiveAnswer } from './views.ts';
export { memoryBackend };
