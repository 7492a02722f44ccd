/** `npm run content:check`: validates content/ like the build and the content test do, and prints deck statistics. */
import { loadDeck, loadExtras } from '../src/data/load-deck-files.ts';
import { checkQuality } from '../src/lib/content-quality.ts';

// Optional path prefixes (e.g. content/cards/serving) limit the report to those files.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const deck = loadDeck(process.cwd());
const mine = (file: string) =>
  only.length === 0 || only.some((p) => file.startsWith(p) || file.startsWith(p.replace(/^\.\//, '')));
const cards = deck.cards.filter((c) => mine(c.file));
const problems = deck.problems.filter((p) => only.length === 0 || only.some((o) => p.includes(o)));
const quality = checkQuality(cards, !process.argv.includes('--lenient'));
const extras = only.length ? { problems: [], quizzes: [], terms: 0 } : loadExtras(process.cwd(), deck.cards);
const all = [...problems, ...quality.problems, ...extras.problems];
const s = quality.stats;
console.log(
  `cards ${s.cards} · questions ${s.questions} · by kind ${JSON.stringify(s.byKind)} · by level ${JSON.stringify(s.byLevel)} · scenario ${s.scenario}`,
);
console.log(
  `correct position (single): ${s.correctPosition.map((p, i) => `${i + 1}:${(p * 100).toFixed(0)}%`).join(' ')} · correct is longest: ${(s.longestCorrectShare * 100).toFixed(0)}%`,
);
if (!only.length) console.log(`curated quizzes ${extras.quizzes.length} · glossary terms ${extras.terms}`);
if (all.length) {
  console.log(`\n${all.length} problem(s):\n- ${all.join('\n- ')}`);
  process.exitCode = 1;
} else console.log('content OK');
