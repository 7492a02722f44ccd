/**
 * The stats page's numbers, all computed from the event log. Pure: `now` and zone passed in.
 * One pass over the events; 50,000 answers take a few ms (see bench/progress.ts).
 */
import type { ProgressEvent } from '../schemas/progress-event.ts';
import { buildSchedule, type Schedule } from './review.ts';
import { dayToIso, localDay, MIDNIGHT, weekdayOf, type DayStartAt } from './streak.ts';

/** Days in the heatmap: 12 weeks. */
export const HEATMAP_DAYS = 84;
/** A topic needs this many answers before it can be called weak. */
export const WEAK_MIN_ANSWERS = 5;
/** How many weakest topics to show. */
export const WEAKEST_COUNT = 3;

export interface HeatmapDay {
  /** "YYYY-MM-DD", local. */
  day: string;
  /** Monday = 0 ... Sunday = 6, for laying out week columns. */
  weekday: number;
  answers: number;
  /** Distinct cards read to the end that day (reading the same card again counts once). */
  cardsRead: number;
  /** 0 (nothing) to 4 (30+ things), for the colour scale. */
  level: 0 | 1 | 2 | 3 | 4;
}

export interface TopicStats {
  topic: string;
  answered: number;
  correct: number;
  /** correct / answered, or null before the first answer. */
  accuracy: number | null;
  /** Distinct cards of this topic read to the end. */
  cardsRead: number;
  /** Cards in the topic, when the deck was passed in. */
  cardsTotal: number | null;
}

export interface Stats {
  /** The last 84 local days, oldest first, ending today. */
  heatmap: HeatmapDay[];
  /** One row per topic seen in the deck or the log; deck topics first, in deck order. */
  topics: TopicStats[];
  /** Lowest accuracy first, among topics with at least 5 answers and accuracy below 100%. */
  weakest: TopicStats[];
  /** Reviews due on each of the next 7 local days; day 0 (today) includes overdue ones. */
  reviewsDue: { day: string; count: number }[];
  totals: { answers: number; correct: number; cardsRead: number; quizzes: number; labs: number };
}

export interface StatsOptions {
  /** The deck (id + topic per card) for "cards read of total". */
  cards?: readonly { id: string; topic: string }[];
  /** A schedule already built for these events (the store keeps one); built here otherwise. */
  schedule?: Schedule;
  /** The learner's current zone (IANA); defaults to UTC. */
  tz?: string;
  /** When each day starts (src/lib/rhythm.ts `dayStartAt`); midnight by default. */
  startAt?: DayStartAt;
}

function level(n: number): HeatmapDay['level'] {
  return n === 0 ? 0 : n < 5 ? 1 : n < 15 ? 2 : n < 30 ? 3 : 4;
}

/**
 * Computes every stats-page number from the sorted event log.
 * @example computeStats(snapshot.events, Date.now(), { cards, schedule: snapshot.schedule, tz })
 */
export function computeStats(events: readonly ProgressEvent[], now: number, options: StatsOptions = {}): Stats {
  const tz = options.tz ?? 'UTC';
  const startAt = options.startAt ?? MIDNIGHT;
  const today = localDay(now, tz, undefined, startAt(now));
  const first = today - HEATMAP_DAYS + 1;
  const answersByDay = new Int32Array(HEATMAP_DAYS);
  const readsByDay = new Int32Array(HEATMAP_DAYS);
  const undone = new Set<string>();
  for (const e of events) if (e.type === 'undo') undone.add(e.targetId);

  const topics = new Map<string, { answered: number; correct: number; read: Set<string>; total: number | null }>();
  const topic = (t: string) => {
    let s = topics.get(t);
    if (!s) topics.set(t, (s = { answered: 0, correct: 0, read: new Set(), total: null }));
    return s;
  };
  for (const c of options.cards ?? []) {
    const s = topic(c.topic);
    s.total = (s.total ?? 0) + 1;
  }
  const totals = { answers: 0, correct: 0, cardsRead: 0, quizzes: 0, labs: 0 };
  const readCards = new Set<string>();
  const readThatDay = new Set<string>();

  for (const e of events) {
    if (e.type === 'answer') {
      if (undone.has(e.id)) continue;
      const s = topic(e.topic);
      s.answered++;
      totals.answers++;
      if (e.correct) {
        s.correct++;
        totals.correct++;
      }
      const d = localDay(e.at, e.tz, e.offsetMin, startAt(e.at)) - first;
      if (d >= 0 && d < HEATMAP_DAYS) answersByDay[d]!++;
    } else if (e.type === 'card-read') {
      topic(e.topic).read.add(e.cardId);
      readCards.add(e.cardId);
      const d = localDay(e.at, e.tz, e.offsetMin, startAt(e.at)) - first;
      const key = `${d}|${e.cardId}`;
      if (d >= 0 && d < HEATMAP_DAYS && !readThatDay.has(key)) {
        readThatDay.add(key);
        readsByDay[d]!++;
      }
    } else if (e.type === 'quiz-done') totals.quizzes++;
    else if (e.type === 'lab-done') totals.labs++;
  }
  totals.cardsRead = readCards.size;

  const heatmap: HeatmapDay[] = [];
  for (let i = 0; i < HEATMAP_DAYS; i++) {
    const a = answersByDay[i]!;
    const r = readsByDay[i]!;
    heatmap.push({
      day: dayToIso(first + i),
      weekday: weekdayOf(first + i),
      answers: a,
      cardsRead: r,
      level: level(a + r),
    });
  }

  const rows: TopicStats[] = [...topics.entries()].map(([t, s]) => ({
    topic: t,
    answered: s.answered,
    correct: s.correct,
    accuracy: s.answered ? s.correct / s.answered : null,
    cardsRead: s.read.size,
    cardsTotal: s.total,
  }));
  const weakest = rows
    .filter((r) => r.answered >= WEAK_MIN_ANSWERS && r.accuracy !== null && r.accuracy < 1)
    .sort((a, b) => a.accuracy! - b.accuracy! || b.answered - a.answered)
    .slice(0, WEAKEST_COUNT);

  const schedule = options.schedule ?? buildSchedule(events);
  const due = new Array<number>(7).fill(0);
  for (const s of schedule.questions.values()) {
    const dueMs = s.card.due.getTime();
    const d = Math.max(0, localDay(dueMs, tz, undefined, startAt(dueMs)) - today);
    if (d < 7) due[d]!++;
  }
  const reviewsDue = due.map((count, i) => ({ day: dayToIso(today + i), count }));
  return { heatmap, topics: rows, weakest, reviewsDue, totals };
}
