/** `npm run content:check`: validates content/ like the build and the content test do, and prints deck statistics. */
import { loadDeck, loadExtras, loadLabDebriefs } from '../src/data/load-deck-files.ts';
import { checkQuality } from '../src/lib/content-quality.ts';
import { cueLines, cueProblems, cueQuestions, measureCues } from '../src/lib/content-cues.ts';
import { totalsLine, totalsProblems } from '../src/lib/deck-totals.ts';

// Optional path prefixes (e.g. content/cards/serving) limit the report to those files.
// --lenient skips the deck-wide ratios. The totals bar applies to the whole deck (not to a folder).
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const deck = loadDeck(process.cwd());
const mine = (file: string) =>
  only.length === 0 || only.some((p) => file.startsWith(p) || file.startsWith(p.replace(/^\.\//, '')));
const cards = deck.cards.filter((c) => mine(c.file));
const labs = loadLabDebriefs(process.cwd());
const debriefs = labs.questions.filter((q) => mine(q.file));
const problems = [...deck.problems, ...labs.problems].filter(
  (p) => only.length === 0 || only.some((o) => p.includes(o)),
);
const quality = checkQuality(cards, !process.argv.includes('--lenient'), debriefs);
const extras = only.length ? { problems: [], quizzes: [], terms: 0 } : loadExtras(process.cwd(), deck.cards);
const s = quality.stats;
const totals = {
  cards: s.cards,
  questions: s.questions,
  byKind: s.byKind,
  scenario: s.scenario,
  curatedQuizzes: extras.quizzes.length,
};
const enforceTotals = !only.length;
// The cue bar (issue #27) is measured on what the filter selects and enforced on the whole deck.
const cues = measureCues(cueQuestions(cards, debriefs));
const enforceCues = !only.length && !process.argv.includes('--lenient');
const all = [
  ...problems,
  ...quality.problems,
  ...extras.problems,
  ...(enforceTotals ? totalsProblems(totals) : []),
  ...(enforceCues ? cueProblems(cues) : []),
];
console.log(
  `cards ${s.cards} · questions ${s.questions} · by kind ${JSON.stringify(s.byKind)} · by level ${JSON.stringify(s.byLevel)} · scenario ${s.scenario}`,
);
console.log(
  `cards and lab debriefs: correct position (single): ${s.correctPosition.map((p, i) => `${i + 1}:${(p * 100).toFixed(0)}%`).join(' ')} · correct is longest: ${(s.longestCorrectShare * 100).toFixed(0)}% · multi-select by correct count: ${JSON.stringify(s.multipleCorrectCounts)}`,
);
for (const line of cueLines(cues)) console.log(line);
if (!only.length) {
  console.log(`curated quizzes ${extras.quizzes.length} · glossary terms ${extras.terms}`);
  console.log(totalsLine(totals));
}
if (all.length) {
  console.log(`\n${all.length} problem(s):\n- ${all.join('\n- ')}`);
  process.exitCode = 1;
} else console.log('content OK');
