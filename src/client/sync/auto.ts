/**
 * When sync runs, on any page of a signed-in device: soon after the page loads, when the device comes back online,
 * when the page is shown again (`visibilitychange`, `pageshow` from the back/forward cache), every 5 minutes while
 * it is open and visible, and 10 s after the learner's last recorded action (answers, reads, saves, undo, rhythm).
 * Each trigger only schedules; the sync itself runs beside the page (session.ts). Offline, nothing is tried:
 * the changes wait in the store and the queue of sync-state, and go with the next trigger.
 */
import { runSync } from './session.ts';
import { APP_EVENT_TYPES } from '../../lib/events.ts';
import { RHYTHM_EVENT } from '../../store/rhythm.ts';

export const EVERY_MS = 5 * 60_000;
export const AFTER_CHANGE_MS = 10_000;

let started = false;

/** Starts the triggers once per page. Returns a stop function (tests). */
export function startAutoSync(win: Window = window): () => void {
  if (started) return () => {};
  started = true;
  let debounce: ReturnType<typeof setTimeout> | undefined;
  const online = () => win.navigator.onLine !== false;
  const now = () => {
    if (online()) void runSync();
  };
  const soon = (ms: number) => {
    clearTimeout(debounce);
    debounce = setTimeout(now, ms);
  };
  const onVisible = () => {
    if (win.document.visibilityState === 'visible') soon(500);
  };
  const onChange = () => soon(AFTER_CHANGE_MS);
  const onShow = (e: PageTransitionEvent) => {
    if (e.persisted) soon(500);
  };
  win.addEventListener('online', now);
  win.addEventListener('pageshow', onShow);
  win.document.addEventListener('visibilitychange', onVisible);
  for (const t of [...APP_EVENT_TYPES, RHYTHM_EVENT]) win.addEventListener(t, onChange);
  const timer = setInterval(() => {
    if (win.document.visibilityState === 'visible') now();
  }, EVERY_MS);
  soon(1000);
  return () => {
    started = false;
    clearTimeout(debounce);
    clearInterval(timer);
    win.removeEventListener('online', now);
    win.removeEventListener('pageshow', onShow);
    win.document.removeEventListener('visibilitychange', onVisible);
    for (const t of [...APP_EVENT_TYPES, RHYTHM_EVENT]) win.removeEventListener(t, onChange);
  };
}
