/**
 * The progress page: streak, 12-week heatmap, accuracy and cards read per topic, weakest topics,
 * reviews due in the next 7 days, storage, and backup export/import. Every number is computed from
 * the events stored on this device (src/store), and updates when another tab records something.
 */
import { useEffect, useMemo, useState } from 'react';
import { progressStore } from '../client/progress-boot.ts';
import type { ProgressSnapshot } from '../store/progress.ts';
import { longDay, plural, percent } from '../lib/progress-text.ts';
import { ANSWERS_PER_DAY, MAX_FREEZES } from '../lib/streak-rules.ts';
import { Heatmap } from './progress/Heatmap.tsx';
import { TopicTable, type TopicInfo } from './progress/TopicTable.tsx';
import { StoragePanel } from './progress/StoragePanel.tsx';
import { BackupPanel } from './progress/BackupPanel.tsx';
import { withBase } from '../lib/base-path.ts';

interface Props {
  /** Every card: id and topic, for "cards read of total". */
  cards: { id: string; topic: string }[];
  /** Topic ids and titles, in deck order. */
  topics: TopicInfo[];
}

type Store = Awaited<ReturnType<typeof progressStore>>;

/**
 * What the page shows (and the server renders) until the store has loaded: the first panels' frames,
 * at least a screen tall, so the saved-cards panel below starts off-screen and nothing visible moves
 * when the numbers arrive (desktop CLS was 0.49 with a one-line placeholder). After 5 s it says the
 * store is still reading (a long history on a slow device), so a slow open never looks like lost progress.
 */
function DashboardSkeleton() {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), 5000);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="dashboard-skeleton" aria-busy="true">
      <p className="muted" role="status" data-testid="loading">
        {slow
          ? 'Still loading your progress: a long history takes a while to read on this device. Nothing is lost.'
          : 'Loading your progress…'}
      </p>
      {['Streak', 'So far', 'Last 12 weeks'].map((title) => (
        <section className="panel" key={title} aria-hidden="true">
          <h2>{title}</h2>
        </section>
      ))}
    </div>
  );
}

export default function ProgressDashboard({ cards, topics }: Props) {
  const [store, setStore] = useState<Store | null>(null);
  const [snapshot, setSnapshot] = useState<ProgressSnapshot | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let off = () => {};
    progressStore().then(
      (p) => {
        setStore(p);
        off = p.watchProgress(setSnapshot);
      },
      () => setFailed(true),
    );
    return () => off();
  }, []);

  const view = useMemo(() => {
    if (!store || !snapshot) return null;
    const now = Date.now();
    const tz = store.deviceZoneName(now);
    const start = performance.now();
    const stats = store.computeStats(snapshot, now, { cards, tz });
    const streak = store.streakOf(snapshot, now, tz);
    store.measure('saturate:compute-stats', start);
    return { stats, streak };
  }, [store, snapshot, cards]);

  if (failed)
    return (
      <p className="notice bad" role="alert">
        Your progress could not be loaded (the app's files are missing). Reload the page while online.
      </p>
    );
  if (!store || !snapshot || !view) return <DashboardSkeleton />;
  const { stats, streak } = view;
  const dueTotal = stats.reviewsDue.reduce((t, d) => t + d.count, 0);

  return (
    <div data-testid="dashboard" data-events={snapshot.events.length}>
      <section className="panel" aria-labelledby="streak-h">
        <h2 id="streak-h">Streak</h2>
        <dl className="stat-row">
          <div>
            <dt>Current</dt>
            <dd data-testid="streak-current">{plural(streak.current, 'day')}</dd>
          </div>
          <div>
            <dt>Longest</dt>
            <dd data-testid="streak-longest">{plural(streak.longest, 'day')}</dd>
          </div>
          <div>
            <dt>Freezes held</dt>
            <dd data-testid="streak-freezes">
              {streak.freezesHeld} of {MAX_FREEZES}
            </dd>
          </div>
        </dl>
        {/* Short on purpose: the rules are the page's static intro (src/pages/progress/index.astro), the largest
            text in the first view, so it is painted with the HTML and nothing larger arrives with the numbers. */}
        <p className="muted">
          {streak.todayDone ? 'Today counts.' : `Today counts after a card read or ${ANSWERS_PER_DAY} answers.`}
          {streak.frozenDays.length > 0 && ` Freezes used: ${streak.frozenDays.map(longDay).join(', ')}.`}
        </p>
      </section>

      <section className="panel" aria-labelledby="totals-h">
        <h2 id="totals-h">So far</h2>
        <dl className="stat-row">
          <div>
            <dt>Answered</dt>
            <dd data-testid="total-answers">{stats.totals.answers}</dd>
          </div>
          <div>
            <dt>Right</dt>
            <dd data-testid="total-accuracy">
              {percent(stats.totals.answers ? stats.totals.correct / stats.totals.answers : null)}
            </dd>
          </div>
          <div>
            <dt>Cards read</dt>
            <dd data-testid="total-cards">
              {stats.totals.cardsRead} of {cards.length}
            </dd>
          </div>
          <div>
            <dt>Quizzes</dt>
            <dd>{stats.totals.quizzes}</dd>
          </div>
          <div>
            <dt>Labs completed</dt>
            <dd data-testid="total-labs">
              {new Set(snapshot.events.flatMap((e) => (e.type === 'lab-done' && e.passed ? [e.labId] : []))).size}
            </dd>
          </div>
        </dl>
      </section>

      <section className="panel" aria-labelledby="activity-h">
        <h2 id="activity-h">Last 12 weeks</h2>
        <Heatmap days={stats.heatmap} />
      </section>

      <section className="panel" aria-labelledby="topics-h">
        <h2 id="topics-h">By topic</h2>
        <TopicTable topics={stats.topics} weakest={stats.weakest} names={topics} />
      </section>

      <section className="panel" aria-labelledby="due-h">
        <h2 id="due-h">Reviews due</h2>
        <p data-testid="due-total">
          {plural(dueTotal, 'review')} in the next 7 days.{' '}
          {stats.reviewsDue[0]!.count > 0 && <a href={withBase('/review/')}>Review {stats.reviewsDue[0]!.count} now</a>}
        </p>
        {dueTotal > 0 ? (
          <table className="data-table" data-testid="due-days">
            <caption className="sr-only">Reviews due per day, next 7 days (days with none left out)</caption>
            <tbody>
              {stats.reviewsDue.map((d, i) =>
                d.count > 0 ? (
                  <tr key={d.day}>
                    <th scope="row">{i === 0 ? 'Today (and overdue)' : longDay(d.day)}</th>
                    <td className="num">{d.count}</td>
                  </tr>
                ) : null,
              )}
            </tbody>
          </table>
        ) : (
          <p className="muted" data-testid="due-none">
            Questions you answer come back here on the day they are due.
          </p>
        )}
        <p>
          <a href={withBase('/review/?mode=retake')}>Retake mistakes</a>
        </p>
      </section>

      <section className="panel" aria-labelledby="storage-h">
        <h2 id="storage-h">On this device</h2>
        <StoragePanel snapshot={snapshot} estimate={store.storageEstimate} />
      </section>

      <section className="panel" aria-labelledby="backup-h">
        <h2 id="backup-h">Backup</h2>
        <BackupPanel api={store} />
      </section>
    </div>
  );
}
