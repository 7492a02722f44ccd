/**
 * The labs as pages use them, read once at build time: sorted, cross-checked against the deck
 * (fails the build naming the file), with Markdown rendered and debrief questions in the quiz's shape.
 */
import { getCollection, type CollectionEntry } from 'astro:content';
import { checkLabs } from '../lib/lab/check.ts';
import { describeCheck } from '../lib/checks.ts';
import type { LabView } from '../lib/lab/run.ts';
import type { MetricId } from '../lib/lab/metrics.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import { getCards, toQuizQuestion } from './deck.ts';
import { md } from './markdown.ts';

export type LabEntry = CollectionEntry<'labs'>;

/** All labs in order, after the cross-file checks. */
export async function getLabs(): Promise<LabEntry[]> {
  const [labs, cards] = await Promise.all([getCollection('labs'), getCards()]);
  const problems = checkLabs(
    labs.map((l) => ({
      id: l.id,
      file: l.filePath ?? `content/labs/${l.id}.md`,
      order: l.data.order,
      prerequisites: l.data.prerequisites,
      questionIds: l.data.debrief.map((q) => q.id),
    })),
    new Set(cards.map((c) => c.id)),
    new Set(cards.flatMap((c) => c.data.questions.map((q) => q.id))),
  );
  if (problems.length) throw new Error(`The labs have ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  return labs.sort((a, b) => a.data.order - b.data.order);
}

/** The lab's debrief in the quiz's shape; answers count for the lab's first prerequisite card. */
export async function labQuestions(lab: LabEntry): Promise<QuizQuestion[]> {
  const cards = await getCards();
  const card = cards.find((c) => c.id === lab.data.prerequisites[0]);
  if (!card)
    throw new Error(`content/labs/${lab.id}.md: prerequisite "${lab.data.prerequisites[0]}" is not a card id.`);
  return lab.data.debrief.map((q) => toQuizQuestion(card, q));
}

/** Every lab's debrief questions, for the question bank (review queue). */
export async function getLabBank(): Promise<QuizQuestion[]> {
  return (await Promise.all((await getLabs()).map(labQuestions))).flat();
}

/** The lab in the island's shape. */
export async function labView(lab: LabEntry): Promise<LabView> {
  const d = lab.data;
  const cards = await getCards();
  const first = cards.find((c) => c.id === d.prerequisites[0]);
  return {
    id: lab.id,
    title: d.title,
    needs: d.needs,
    workload: d.workload ?? null,
    charts: d.charts.map((c) => ({ title: c.title, metrics: c.metrics as MetricId[], thresholds: c.thresholds })),
    mfu: d.mfu ? { flopsPerToken: d.mfu.flopsPerToken, peakTflops: d.mfu.peakTflops ?? null } : null,
    cost: d.cost,
    setup: d.setup,
    steps: d.steps.map((s) => ({
      id: s.id,
      title: s.title,
      instructionHtml: md(s.instruction),
      run: s.run ?? null,
      check: s.check,
      checkText: describeCheck(s.check),
      hintHtml: md(s.hint),
      sim: { scenario: s.sim.scenario, knobs: s.sim.knobs },
      fix: s.fix ? { label: s.fix.label, scenario: s.fix.scenario ?? s.sim.scenario, knobs: s.fix.knobs } : null,
    })),
    card: { id: d.prerequisites[0] ?? '', title: first?.data.title ?? '' },
  };
}
