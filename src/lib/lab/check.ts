/**
 * Checks across lab files that a per-file schema cannot see: prerequisite cards exist, debrief
 * question ids carry the `lab-<slug>-` prefix and are unique across the deck and every lab, and
 * lab positions are unique. Pure; src/data/labs.ts throws the problems at build time.
 */

/** What the checks need to know about a lab. */
export interface LabEntry {
  id: string;
  /** Path for messages, e.g. content/labs/data-loader-starvation.md */
  file: string;
  order: number;
  prerequisites: readonly string[];
  questionIds: readonly string[];
}

/** Every cross-file problem; empty when the labs are sound. */
export function checkLabs(
  labs: readonly LabEntry[],
  cardIds: ReadonlySet<string>,
  deckQuestionIds: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const orders = new Map<number, string>();
  for (const lab of labs) {
    for (const card of lab.prerequisites) {
      if (!cardIds.has(card))
        problems.push(
          `${lab.file}: prerequisite "${card}" is not a card id. Use a file name from content/cards/** (without .md).`,
        );
    }
    const other = orders.get(lab.order);
    if (other)
      problems.push(`${lab.file}: order ${lab.order} is also used by ${other}. Give each lab its own position.`);
    orders.set(lab.order, lab.file);
    for (const q of lab.questionIds) {
      if (!q.startsWith(`lab-${lab.id}-`))
        problems.push(`${lab.file}: debrief question "${q}" must start with "lab-${lab.id}-".`);
      if (deckQuestionIds.has(q))
        problems.push(
          `${lab.file}: debrief question id "${q}" is already used by a card. Question ids are unique across the deck.`,
        );
      const dup = seen.get(q);
      if (dup) problems.push(`${lab.file}: debrief question id "${q}" is also used in ${dup}.`);
      seen.set(q, lab.file);
    }
  }
  return problems;
}
