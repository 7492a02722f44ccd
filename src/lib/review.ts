/**
 * Spaced review with FSRS (ts-fsrs), derived from the event log. Pure: `now` is always passed in.
 *
 * - Each answer schedules its question: wrong → Again, right → Good, right and fast → Easy, where
 *   fast means at most `EASY_WITHIN_MS[kind]`.
 * - The schedule is a fold over the log in (at, id) order with undone answers skipped, so the
 *   same events always give the same schedule. Fuzz is off: intervals are reproducible.
 * - Folding is incremental: `buildSchedule(events, prior)` only folds events after `prior`'s
 *   horizon (the store caches the schedule; a full fold of 50,000 answers takes ~170 ms).
 *   An undo of a question's latest answer is applied with ts-fsrs `rollback`; an undo of an
 *   older one rebuilds that question from its answers.
 */
import { createEmptyCard, fsrs, Rating, State, type Card, type Grade, type ReviewLog } from 'ts-fsrs';
import type { AnswerEvent, UndoEvent } from '../schemas/progress-event.ts';
import { compareEvents } from '../schemas/progress-event.ts';

/**
 * A right answer at most this fast (ms) is graded Easy. Single choice is a read-and-pick; multiple
 * choice needs every option weighed; numeric needs a calculation.
 */
export const EASY_WITHIN_MS = { single: 8_000, multiple: 15_000, numeric: 30_000 } as const;
export type AnswerKind = keyof typeof EASY_WITHIN_MS;

/** New questions offered after the due ones, by default. */
export const NEW_PER_SESSION = 10;

const scheduler = fsrs({ request_retention: 0.9, enable_fuzz: false });

/** The answer fields grading needs. */
export type GradedAnswer = Pick<AnswerEvent, 'correct' | 'timeMs' | 'choice'> & {
  kind?: AnswerKind | undefined;
  timeClamped?: true | undefined;
};

/**
 * The question kind: as recorded, else inferred from the choice (a number → numeric; several
 * options → multiple; one option → single, which has the stricter Easy threshold).
 */
export function answerKind(a: GradedAnswer): AnswerKind {
  if (a.kind) return a.kind;
  if (typeof a.choice === 'number') return 'numeric';
  return a.choice.length > 1 ? 'multiple' : 'single';
}

/**
 * Wrong → Again, right → Good, right within the kind's Easy threshold → Easy. A clamped time
 * (`timeClamped`: the device clock was implausible) is no evidence of speed: right → Good.
 */
export function gradeAnswer(a: GradedAnswer): Grade {
  if (!a.correct) return Rating.Again;
  return !a.timeClamped && a.timeMs <= EASY_WITHIN_MS[answerKind(a)] ? Rating.Easy : Rating.Good;
}

/** One question's memory state. */
export interface QuestionState {
  card: Card;
  /** The latest answer folded in, with what `rollback` needs to undo it; null after an undo. */
  last: { answerId: string; log: ReviewLog; prevDueMs: number } | null;
}

export interface Schedule {
  /** How many events (of any type) have been folded, and the newest of them. */
  foldedCount: number;
  horizon: { at: number; id: string } | null;
  questions: Map<string, QuestionState>;
}

/** An empty schedule. */
export function emptySchedule(): Schedule {
  return { foldedCount: 0, horizon: null, questions: new Map() };
}

type Foldable = { id: string; at: number; type: string };
const isAnswer = (e: Foldable): e is AnswerEvent => e.type === 'answer';
const isUndo = (e: Foldable): e is UndoEvent => e.type === 'undo';

function apply(states: Map<string, QuestionState>, a: AnswerEvent): void {
  const prev: Card = states.get(a.questionId)?.card ?? createEmptyCard<Card>(a.at);
  const { card, log } = scheduler.next(prev, a.at, gradeAnswer(a));
  states.set(a.questionId, { card, last: { answerId: a.id, log, prevDueMs: prev.due.getTime() } });
}

/** Number of events ordered at or before `h` in a sorted list. */
function countUpTo(events: readonly Foldable[], h: { at: number; id: string }): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEvents(events[mid]!, h) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The schedule for a log sorted by (at, id). With `prior` (a cached schedule) only the newer
 * events are folded; when `prior` does not match the log (an older event merged in, a record
 * quarantined) everything is folded again.
 */
export function buildSchedule(events: readonly Foldable[], prior?: Schedule | null): Schedule {
  const undone = new Set<string>();
  for (const e of events) if (isUndo(e)) undone.add(e.targetId);
  let start = 0;
  let states = new Map<string, QuestionState>();
  if (prior?.horizon && countUpTo(events, prior.horizon) === prior.foldedCount) {
    start = prior.foldedCount;
    states = new Map(prior.questions);
  }
  const horizon = prior && start > 0 ? prior.horizon : null;
  let byQuestion: Map<string, AnswerEvent[]> | null = null;
  for (let i = start; i < events.length; i++) {
    const e = events[i]!;
    if (isAnswer(e)) {
      if (!undone.has(e.id)) apply(states, e);
    } else if (isUndo(e) && horizon) {
      const target = events.slice(0, start).find((x) => x.id === e.targetId);
      if (!target || !isAnswer(target)) continue; // folded now (skipped) or unknown: nothing to undo
      const s = states.get(target.questionId);
      if (s?.last?.answerId === target.id && s.last.log.state === State.New) {
        states.delete(target.questionId); // its only answer undone: the question is new again
      } else if (s?.last?.answerId === target.id) {
        const card = scheduler.rollback(s.card, s.last.log);
        states.set(target.questionId, { card: { ...card, due: new Date(s.last.prevDueMs) }, last: null });
      } else {
        byQuestion ??= groupAnswers(events);
        rebuildQuestion(states, target.questionId, byQuestion, undone, e);
      }
    }
  }
  const last = events.at(-1);
  return { foldedCount: events.length, horizon: last ? { at: last.at, id: last.id } : null, questions: states };
}

function groupAnswers(events: readonly Foldable[]): Map<string, AnswerEvent[]> {
  const m = new Map<string, AnswerEvent[]>();
  for (const e of events) if (isAnswer(e)) m.set(e.questionId, [...(m.get(e.questionId) ?? []), e]);
  return m;
}

function rebuildQuestion(
  states: Map<string, QuestionState>,
  qid: string,
  byQuestion: Map<string, AnswerEvent[]>,
  undone: Set<string>,
  upTo: Foldable,
): void {
  states.delete(qid);
  for (const a of byQuestion.get(qid) ?? []) if (compareEvents(a, upTo) < 0 && !undone.has(a.id)) apply(states, a);
}

/** What the review page gets: due questions (most overdue first), then new ones. */
export interface ReviewQueue<Q> {
  due: Q[];
  fresh: Q[];
  /** `due` then `fresh`. */
  items: Q[];
}

/**
 * The review session for a bank of questions at `now`: every due question, most overdue first,
 * then up to `newLimit` never-answered questions in bank order. Questions no longer in the bank
 * are left out.
 */
export function reviewQueue<Q extends { id: string }>(
  bank: readonly Q[],
  schedule: Schedule,
  now: number,
  newLimit = NEW_PER_SESSION,
): ReviewQueue<Q> {
  const due: { q: Q; dueMs: number }[] = [];
  const fresh: Q[] = [];
  for (const q of bank) {
    const s = schedule.questions.get(q.id);
    if (!s) {
      if (fresh.length < newLimit) fresh.push(q);
    } else if (s.card.due.getTime() <= now) due.push({ q, dueMs: s.card.due.getTime() });
  }
  due.sort((a, b) => a.dueMs - b.dueMs);
  const dueQs = due.map((d) => d.q);
  return { due: dueQs, fresh, items: [...dueQs, ...fresh] };
}

/**
 * "Retake mistakes": every question answered wrong and not answered right since, most recent
 * mistake first. Pass active answers (undone ones removed), sorted by time.
 */
export function retakeMistakes(answers: readonly Pick<AnswerEvent, 'questionId' | 'correct' | 'at'>[]): string[] {
  const lastWrong = new Map<string, number>();
  for (const a of answers) {
    if (a.correct) lastWrong.delete(a.questionId);
    else lastWrong.set(a.questionId, a.at);
  }
  return [...lastWrong.entries()].sort((a, b) => b[1] - a[1]).map(([q]) => q);
}

/** Active answers: sorted answers without the undone ones. */
export function activeAnswers(events: readonly Foldable[]): AnswerEvent[] {
  const undone = new Set<string>();
  for (const e of events) if (isUndo(e)) undone.add(e.targetId);
  const out: AnswerEvent[] = [];
  for (const e of events) if (isAnswer(e) && !undone.has(e.id)) out.push(e);
  return out;
}
