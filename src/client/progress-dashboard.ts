/**
 * Fills in /progress/'s dashboard (src/components/ProgressDashboard.astro) from the progress store:
 * streak, totals, heatmap, topics, reviews due, storage and backup. Re-renders the numbers on each
 * store update (another tab's included); the backup panel keeps its own state across updates.
 */
import { progressStore } from './progress-boot.ts';
import type { ProgressSnapshot } from '../store/progress.ts';
import { longDay, percent, plural } from '../lib/progress-text.ts';
import { ANSWERS_PER_DAY, MAX_FREEZES } from '../lib/streak-rules.ts';
import { heatmap, reviewsDue, topicTable, type TopicInfo } from './progress-tables.ts';
import { renderStorage } from './progress-storage.ts';
import { startBackup } from './progress-backup.ts';

type Store = Awaited<ReturnType<typeof progressStore>>;

/** After this long without the store, the loading line says it is still reading (a long history, a slow device). */
const SLOW_MS = 5000;

/** Starts the dashboard under `root` (the component's outer element). */
export function startDashboard(root: HTMLElement): void {
  const cards = JSON.parse(root.dataset['cards'] ?? '[]') as { id: string; topic: string }[];
  const topics = JSON.parse(root.dataset['topics'] ?? '[]') as TopicInfo[];
  const q = <T extends HTMLElement = HTMLElement>(sel: string) => root.querySelector<T>(sel)!;
  const skeleton = q('[data-dashboard-skeleton]');
  const timer = setTimeout(() => {
    q('[data-testid="loading"]').textContent =
      'Still loading your progress: a long history takes a while to read on this device. Nothing is lost.';
  }, SLOW_MS);
  const dashboard = q('[data-testid="dashboard"]');
  const set = (testId: string, text: string | number) => (q(`[data-testid="${testId}"]`).textContent = String(text));

  const render = (store: Store, snapshot: ProgressSnapshot) => {
    const now = Date.now();
    const tz = store.deviceZoneName(now);
    const start = performance.now();
    const stats = store.computeStats(snapshot, now, { cards, tz });
    const streak = store.streakOf(snapshot, now, tz);
    store.measure('saturate:compute-stats', start);

    dashboard.dataset['events'] = String(snapshot.events.length);
    set('streak-current', plural(streak.current, 'day'));
    set('streak-longest', plural(streak.longest, 'day'));
    set('streak-freezes', `${streak.freezesHeld} of ${MAX_FREEZES}`);
    q('[data-streak-note]').textContent =
      (streak.todayDone ? 'Today counts.' : `Today counts after a card read or ${ANSWERS_PER_DAY} answers.`) +
      (streak.frozenDays.length > 0 ? ` Freezes used: ${streak.frozenDays.map(longDay).join(', ')}.` : '');

    const { totals } = stats;
    set('total-answers', totals.answers);
    set('total-accuracy', percent(totals.answers ? totals.correct / totals.answers : null));
    set('total-cards', `${totals.cardsRead} of ${cards.length}`);
    q('[data-total-quizzes]').textContent = String(totals.quizzes);
    const labs = new Set(snapshot.events.flatMap((e) => (e.type === 'lab-done' && e.passed ? [e.labId] : [])));
    set('total-labs', labs.size);

    q('[data-heatmap-slot]').replaceChildren(...heatmap(stats.heatmap));
    q('[data-topics-slot]').replaceChildren(...topicTable(stats.topics, stats.weakest, topics));
    q('[data-due-slot]').replaceChildren(...reviewsDue(stats.reviewsDue));
    renderStorage(q('[data-storage-slot]'), snapshot, store.storageEstimate);

    if (dashboard.hidden) {
      clearTimeout(timer);
      skeleton.remove();
      dashboard.hidden = false;
    }
  };

  progressStore().then(
    (store) => {
      startBackup(q('[data-backup]'), store);
      store.watchProgress((snapshot) => render(store, snapshot));
    },
    () => {
      clearTimeout(timer);
      skeleton.remove();
      q('[data-dashboard-failed]').hidden = false;
    },
  );
}
