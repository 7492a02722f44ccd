/**
 * The one module every page may load for sync (from src/client/progress-boot.ts, on a signed-in device): it has no
 * static imports, so the page's boot chunk lists only this file; the triggers and their dependencies (auto.ts) load
 * from here.
 */

/** Loads and starts the sync triggers (auto.ts). */
export function startSync(): Promise<void> {
  return import('./auto.ts').then((m) => void m.startAutoSync());
}
