/**
 * Checks that span files, which a per-entry zod schema cannot see: body sections, `related` ids,
 * question ids unique across the whole deck, and the figures a body places (src/lib/figures/check.ts).
 * Pure: the content loader calls it at build time and throws its problems as one error; unit tests
 * call it with fixtures.
 */
import { CARD_SECTIONS } from '../schemas/card.ts';
import { checkFigures } from './figures/check.ts';

/** What the checks need to know about a card. */
export interface DeckEntry {
  id: string;
  /** Path for messages, e.g. content/cards/meters/gpu-util.md */
  file: string;
  body: string;
  related: readonly string[];
  questionIds: readonly string[];
  /** The card's `topic`, which must match its folder (content/cards/<topic>/<slug>.md). */
  topic?: string;
}

/** The `## ` headings of a Markdown body, in order (fenced code blocks ignored). */
export function sectionHeadings(body: string): string[] {
  const headings: string[] = [];
  let inFence = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence) {
      const m = /^##\s+(.+?)\s*#*\s*$/.exec(line);
      if (m) headings.push(m[1]!);
    }
  }
  return headings;
}

/** Problems with a body's sections: missing, out of order, or empty. */
export function checkSections(file: string, body: string): string[] {
  const found = sectionHeadings(body);
  const problems: string[] = [];
  for (const s of CARD_SECTIONS) {
    if (!found.includes(s))
      problems.push(
        `${file}: body is missing the section "## ${s}". Add it (sections in order: ${CARD_SECTIONS.join(' · ')}).`,
      );
  }
  const order = found.filter((h) => (CARD_SECTIONS as readonly string[]).includes(h));
  if (problems.length === 0 && order.join('|') !== CARD_SECTIONS.join('|')) {
    problems.push(
      `${file}: sections are out of order or repeated (${order.join(' · ')}). Use: ${CARD_SECTIONS.join(' · ')}.`,
    );
  }
  const parts = body.split(/^##\s+.*$/m).slice(1);
  parts.forEach((text, i) => {
    if (text.trim().length === 0 && found[i])
      problems.push(`${file}: section "## ${found[i]}" is empty. Write it or remove the card.`);
  });
  return problems;
}

/** Every cross-file problem in the deck; empty when the deck is sound. */
export function checkDeck(entries: readonly DeckEntry[]): string[] {
  const problems: string[] = [];
  const ids = new Set(entries.map((e) => e.id));
  const seenCard = new Map<string, string>();
  const seenQuestion = new Map<string, string>();
  for (const e of entries) {
    const dupCard = seenCard.get(e.id);
    if (dupCard)
      problems.push(
        `${e.file}: card id "${e.id}" is also used by ${dupCard}. Rename one file: the id is the file name.`,
      );
    seenCard.set(e.id, e.file);
    problems.push(...checkSections(e.file, e.body));
    problems.push(...checkFigures(e.file, e.body));
    const folder = e.file.replace(/\\/g, '/').split('/').slice(-2, -1)[0];
    if (folder && e.topic && folder !== e.topic) {
      problems.push(
        `${e.file}: topic is "${e.topic}" but the file is in content/cards/${folder}/. Move the file to content/cards/${e.topic}/ or fix \`topic\`.`,
      );
    }
    e.related.forEach((r, i) => {
      if (r === e.id) problems.push(`${e.file}: related[${i}] is the card itself. Remove it.`);
      else if (!ids.has(r))
        problems.push(
          `${e.file}: related[${i}] "${r}" is not a card id. Use an existing card's file name (without .md) or remove it.`,
        );
    });
    e.questionIds.forEach((q, i) => {
      const other = seenQuestion.get(q);
      if (other)
        problems.push(
          `${e.file}: questions[${i}].id "${q}" is already used in ${other}. Question ids must be unique across the deck: rename this one.`,
        );
      else seenQuestion.set(q, e.file);
    });
  }
  return problems;
}
