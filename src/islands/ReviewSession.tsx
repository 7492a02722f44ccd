/**
 * The review page: the FSRS queue (due questions first, most overdue first, then new ones) served
 * through the Quiz in `context="review"` with "Undo last answer", and a one-tap "Retake mistakes"
 * quiz (every question answered wrong and not answered right since, `context="retake"`).
 * Mode is in the URL (?mode=retake) so it can be linked. The bank is /bank.json (precached).
 * A session in progress is kept on the device (quiz ids "review" and "retake"): opened again, in
 * this tab or another, it goes on with the same questions, even though answering has changed the queue.
 */
import { useCallback, useEffect, useState } from 'react';
import Quiz from './Quiz.tsx';
import { QuizStatus } from './QuizStatus.tsx';
import { progressStore } from '../client/progress-boot.ts';
import { readQuizSave } from '../client/quiz-resume.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import { withBase } from '../lib/base-path.ts';
import { QUEUE_WORDS, queueCounts, queueSentence, type QueueCounts } from '../lib/review-counts.ts';

interface Props {
  /** URL of the question bank JSON. */
  bankUrl: string;
}

type Mode = 'review' | 'retake';
type Counts = { counts: QueueCounts; retake: number };
type Session = Counts & { mode: Mode; questions: QuizQuestion[]; key: string };
type State = { status: 'loading' } | { status: 'error'; message: string } | ({ status: 'ready' } & Session);

/** A short stable hash of the question ids, so a reload resumes the same session only. */
function idsKey(qs: readonly { id: string }[]): string {
  let h = 0x811c9dc5;
  for (const q of qs) for (let i = 0; i < q.id.length; i++) h = Math.imul(h ^ q.id.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/** What the queue holds now: due and new questions, and the mistakes to retake. */
async function queueNow(bank: QuizQuestion[]): Promise<{ items: QuizQuestion[]; mistakes: QuizQuestion[] } & Counts> {
  const p = await progressStore();
  const now = Date.now();
  const queue = await p.getReviewQueue({ bank, now });
  const counts = queueCounts(bank, (await p.loadProgress()).schedule.questions, now, p.NEW_PER_SESSION);
  const byId = new Map(bank.map((q) => [q.id, q]));
  const mistakes = (await p.getRetakeQuestionIds())
    .map((id) => byId.get(id))
    .filter((q): q is QuizQuestion => q !== undefined);
  return { items: queue.items, mistakes, counts, retake: mistakes.length };
}

/** The session to show: a saved one in progress (same questions), else the queue or the mistakes now. */
async function buildSession(bank: QuizQuestion[], mode: Mode): Promise<Session> {
  const { items, mistakes, ...counts } = await queueNow(bank);
  const byId = new Map(bank.map((q) => [q.id, q]));
  const saved = await readQuizSave(mode);
  const resumed = saved?.questionIds.map((id) => byId.get(id)) ?? [];
  const questions = saved && resumed.every((q) => q !== undefined) ? resumed : mode === 'retake' ? mistakes : items;
  return { mode, questions, ...counts, key: `${mode}:${idsKey(questions)}` };
}

export default function ReviewSession({ bankUrl }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [bank, setBank] = useState<QuizQuestion[] | null>(null);

  const start = useCallback(async (b: QuizQuestion[], mode: Mode) => {
    const url = new URL(window.location.href);
    if (mode === 'retake') url.searchParams.set('mode', 'retake');
    else url.searchParams.delete('mode');
    history.replaceState(history.state, '', url);
    setState({ status: 'ready', ...(await buildSession(b, mode)) });
  }, []);

  useEffect(() => {
    const mode: Mode = new URL(window.location.href).searchParams.get('mode') === 'retake' ? 'retake' : 'review';
    fetch(bankUrl)
      .then((r) => {
        if (!r.ok) throw new Error(`the question bank answered ${r.status}`);
        return r.json() as Promise<QuizQuestion[]>;
      })
      .then(async (b) => {
        setBank(b);
        await start(b, mode);
      })
      .catch((e: Error) =>
        setState({
          status: 'error',
          message: `Could not load the questions (${e.message}). Check your connection and reload.`,
        }),
      );
  }, [bankUrl, start]);

  // The counts follow every answer (this tab or another): after a round they say what is left,
  // while the session's questions stay as they were drawn.
  useEffect(() => {
    if (!bank) return;
    let stopped = false;
    let off: (() => void) | null = null;
    void progressStore().then((p) => {
      if (stopped) return;
      off = p.subscribe(() => {
        void queueNow(bank).then(({ counts, retake }) => {
          if (!stopped) setState((s) => (s.status === 'ready' ? { ...s, counts, retake } : s));
        });
      });
    });
    return () => {
      stopped = true;
      off?.();
    };
  }, [bank]);

  if (state.status === 'loading') return <QuizStatus loading="Loading your review…" />;
  if (state.status === 'error') return <QuizStatus error={state.message} />;

  const retakeLabel = state.retake ? `Retake mistakes (${state.retake})` : 'No mistakes to retake';
  return (
    <>
      <div className="review-head">
        {state.mode === 'review' ? (
          <>
            <p className="muted" data-testid="review-counts">
              {queueSentence(state.counts, Date.now(), navigator.language)}
            </p>
            <p className="muted">{QUEUE_WORDS}</p>
          </>
        ) : (
          <p className="muted" data-testid="review-counts">
            {state.retake} questions you got wrong and have not got right since.
          </p>
        )}
        <div className="actions">
          {state.mode === 'review' ? (
            <button
              type="button"
              className="button secondary"
              disabled={!state.retake}
              onClick={() => bank && void start(bank, 'retake')}
            >
              {retakeLabel}
            </button>
          ) : (
            <button type="button" className="button secondary" onClick={() => bank && void start(bank, 'review')}>
              Back to review
            </button>
          )}
        </div>
      </div>
      {state.questions.length === 0 ? (
        <section className="quiz">
          <p>
            {state.mode === 'review'
              ? 'Nothing is due. Come back later, or take a practice quiz.'
              : 'No mistakes to retake: every question you got wrong you have since got right.'}
          </p>
          <p>
            <a className="button" href={withBase('/practice/')}>
              Practice quiz
            </a>
          </p>
        </section>
      ) : (
        <Quiz
          key={state.key}
          title={state.mode === 'review' ? 'Review' : 'Retake mistakes'}
          quizId={state.mode}
          context={state.mode}
          questions={state.questions}
          seed={state.key}
          allowUndo
          links={[{ href: '/progress/', label: 'Your progress' }]}
          resume={
            state.mode === 'review'
              ? { title: 'Review', href: '/review/' }
              : { title: 'Retake mistakes', href: '/review/?mode=retake' }
          }
        />
      )}
    </>
  );
}
