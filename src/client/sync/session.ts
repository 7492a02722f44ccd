/**
 * Sync in this page: `runSync()` (one at a time, joined when already running) with the browser's stores, and the
 * status it announces on `window` as `saturate:sync-status` (the /progress/ panel listens; so could any page).
 * Loaded only where the learner signed in (src/store/sync-flag.ts) or opens the sync panel.
 */
import { syncApi, SyncApiError } from './api.ts';
import { syncOnce, type SyncDeps, type SyncReport } from './engine.ts';
import { PROBLEM_TEXT, type SyncProblem } from '../../lib/sync/status-text.ts';
import { readAccountKeys, readSyncLocal, readSyncSession, writeSyncLocal } from '../../store/sync-state.ts';
import { applyRecords, localRecords } from '../../store/sync-records.ts';
import { progressStore } from '../progress-boot.ts';
import { toB64u, randomBytes } from '../../lib/sync/bytes.ts';

export const SYNC_STATUS_EVENT = 'saturate:sync-status';

/** What the page is told after each attempt. */
export interface SyncStatusDetail {
  state: 'syncing' | 'ok' | 'error' | 'signed-out';
  problem?: SyncProblem;
  message?: string;
  report?: SyncReport;
}

let running: Promise<SyncStatusDetail> | null = null;
let last: SyncStatusDetail | null = null;

/** The last status announced in this page, if any. */
export const lastSyncStatus = () => last;

function announce(d: SyncStatusDetail): SyncStatusDetail {
  last = d;
  if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent(SYNC_STATUS_EVENT, { detail: d }));
  return d;
}

/** A random node id for this device's clock. */
export const newNode = () => toB64u(randomBytes(9));

/** The browser's parts of a sync, or null when this device is not signed in. */
export async function browserDeps(): Promise<SyncDeps | null> {
  const [session, keys] = await Promise.all([readSyncSession(), readAccountKeys()]);
  if (!session || !keys) return null;
  return {
    api: syncApi(session.serverUrl, session.token),
    keys,
    readLocal: () => readSyncLocal(newNode),
    writeLocal: (s) => writeSyncLocal(s),
    // Through the page's store (progress-boot.ts), so events recorded meanwhile are handed over first.
    events: async () => (await (await progressStore()).loadProgress()).events,
    importEvents: async (text) => (await progressStore()).applyImport(text),
    records: (now) => localRecords(now),
    applyRecords: (versions) => applyRecords(versions),
    now: Date.now,
  };
}

/** Syncs now (or joins the sync under way). Never throws: the outcome is announced and returned. */
export function runSync(): Promise<SyncStatusDetail> {
  running ??= (async () => {
    const deps = await browserDeps();
    if (!deps) return announce({ state: 'signed-out' });
    announce({ state: 'syncing' });
    try {
      return announce({ state: 'ok', report: await syncOnce(deps) });
    } catch (err) {
      const problem: SyncProblem = err instanceof SyncApiError ? err.problem : 'unreachable';
      const message = err instanceof SyncApiError ? err.message : PROBLEM_TEXT.unreachable;
      if (!(err instanceof SyncApiError)) console.warn('Sync failed:', err);
      return announce({ state: 'error', problem, message });
    }
  })().finally(() => {
    running = null;
  });
  return running;
}
