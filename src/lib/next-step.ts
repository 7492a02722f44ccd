/**
 * Home's one next step (as Duolingo's single "Continue"): of everything the learner could do next, the single best
 * thing is the one filled button; the others follow as secondary buttons. Pure: the page passes what it read.
 *
 * Order: a quiz in progress (the most recent; finishing what was started keeps its answers together), then review
 * questions back now (learning and due: src/lib/review-counts.ts), then the next unread card in reading order
 * ("Start reading" before any), then other quizzes in progress, and a practice quiz last.
 */

export type StepKind = 'resume' | 'review' | 'card' | 'start' | 'practice';

export interface Step {
  kind: StepKind;
  /** The small first line ("Next card:"), or '' for a one-line button. */
  lead: string;
  /** The button's text after the lead. */
  text: string;
  href: string;
  /** Exactly one step is primary: the first. */
  primary: boolean;
}

export interface NextStepInput {
  /** Quizzes in progress, most recently used first. */
  saves: readonly { label: string; href: string }[];
  /** Review questions back now (learning and due). */
  reviewNow: number;
  /** The first unread card in reading order; null when every card is read. */
  nextCard: { title: string; href: string } | null;
  /** Cards read to the end so far. */
  readCount: number;
  /** Where the review and practice pages are (with the site's base path). */
  reviewHref: string;
  practiceHref: string;
}

/** At most this many buttons: one primary and three secondary. */
export const MAX_STEPS = 4;

/**
 * The home page's buttons, best first; only the first is primary.
 * @example nextSteps({ saves: [], reviewNow: 0, nextCard: { title: 'GPU-Util', href: '/cards/gpu-util/' }, readCount: 0, reviewHref: '/review/', practiceHref: '/practice/' })
 * // [{ kind: 'start', text: 'Start reading', primary: true, … }, { kind: 'practice', primary: false, … }]
 */
export function nextSteps(i: NextStepInput): Step[] {
  const steps: Omit<Step, 'primary'>[] = [];
  const [latest, ...older] = i.saves;
  if (latest) steps.push({ kind: 'resume', lead: '', text: latest.label, href: latest.href });
  if (i.reviewNow > 0)
    steps.push({
      kind: 'review',
      lead: 'Review:',
      text: `${i.reviewNow} ${i.reviewNow === 1 ? 'question' : 'questions'} back now`,
      href: i.reviewHref,
    });
  if (i.nextCard)
    steps.push(
      i.readCount === 0
        ? { kind: 'start', lead: '', text: 'Start reading', href: i.nextCard.href }
        : { kind: 'card', lead: 'Next card:', text: i.nextCard.title, href: i.nextCard.href },
    );
  for (const s of older) steps.push({ kind: 'resume', lead: '', text: s.label, href: s.href });
  steps.push({ kind: 'practice', lead: '', text: 'Take a practice quiz', href: i.practiceHref });
  // Too many: drop the oldest quizzes in progress, keep the practice quiz last.
  const kept = steps.length > MAX_STEPS ? [...steps.slice(0, MAX_STEPS - 1), steps.at(-1)!] : steps;
  return kept.map((s, n) => ({ ...s, primary: n === 0 }));
}
