/**
 * Cues that let a test-wise learner score without knowing the material (issue #27, "Answers that can't be
 * guessed"), measured as the score of the guessing strategy each cue enables:
 * - **length**: "pick the shortest option" and "pick the longest option" on single-choice questions;
 * - **absolute words**: "strike the options that say always/never/only…" on single and multiple choice;
 * - **correct counts**: "tick all but the sweeping one" on select-all questions.
 * Pure; `npm run content:check` prints these measures and the content test fails when `cueProblems` is not empty.
 */
import type { Question } from '../schemas/question.ts';

/** A question, the file it lives in and the topic it is scored under (a card's topic, or "labs"). */
export interface CueQuestion {
  file: string;
  topic: string;
  question: Question;
}

/**
 * The questions the cues are measured on: every card question under its card's topic, and every lab debrief
 * question under the topic "labs".
 */
export function cueQuestions(
  cards: readonly { file: string; data: { topic: string; questions: readonly Question[] } }[],
  debriefs: readonly { file: string; question: Question }[] = [],
): CueQuestion[] {
  return [
    ...cards.flatMap((c) => c.data.questions.map((question) => ({ file: c.file, topic: c.data.topic, question }))),
    ...debriefs.map((d) => ({ ...d, topic: 'labs' })),
  ];
}

/** Thresholds of the cue bar. */
export const CUE_BAR = {
  /**
   * "Pick the shortest" and "pick the longest" may each score at most this share of single-choice questions, over
   * the deck and within every topic. Each tell is held separately: chance is 1/4 each on four options, and a bar on
   * the two together (chance 1/2) would push right answers into the middle, itself a tell ("pick the median").
   */
  lengthShareMax: 0.3,
  /**
   * Within one card's quiz (or one lab's debrief) with at least `cardMinSingles` single-choice questions, each length
   * strategy may score at most this share: a learner takes a card's quiz on its own, so a tell concentrated in one
   * card is real even when the topic's average hides it.
   */
  cardLengthShareMax: 0.5,
  cardMinSingles: 3,
  /**
   * Options with an absolute word may be wrong at most this many points (as a share) more often than right, and,
   * so that the fix does not become the mirror tell ("pick the sweeping one"), right at most this many more often.
   */
  absoluteGapMax: 0.05,
  /** No one count of correct options may cover more than this share of the select-all questions. */
  correctCountShareMax: 0.4,
  /** …and none over that share among the questions with one number of options, where there are at least this many. */
  correctCountGroupMin: 10,
  /** "All but one option correct" may cover at most this share of the select-all questions. */
  allButOneShareMax: 0.3,
} as const;

/**
 * Words that make a claim sweeping. Matched as whole words, case-insensitively, outside `code` spans and not as part
 * of a hyphenated compound, so all-reduce, all-to-all, read-only and `torch.cuda.synchronize()` never count. Left out
 * on purpose: "no", "any", "cannot" (ordinary precise negation) and "most" (a hedge, not an absolute).
 */
export const ABSOLUTE_WORDS = [
  'always',
  'never',
  'every',
  'everything',
  'everyone',
  'only',
  'all',
  'none',
  'nothing',
  'prove',
  'proves',
  'proven',
  'guarantee',
  'guarantees',
  'guaranteed',
  'must',
  'impossible',
] as const;

const ABSOLUTE_RE = new RegExp(`(?<![-\\w])(${ABSOLUTE_WORDS.join('|')})(?![-\\w])`, 'gi');

/**
 * The absolute words in a text, lower-cased, in order.
 * @example absoluteWords('It always stalls, even in all-reduce') // ['always']
 */
export function absoluteWords(text: string): string[] {
  return [...text.replace(/`[^`]*`/g, ' ').matchAll(ABSOLUTE_RE)].map((m) => m[1]!.toLowerCase());
}

/** How often the length strategies score on a set of single-choice questions. */
export interface LengthCue {
  singles: number;
  /** Expected score of "pick the shortest" (a tie among k shortest options scores 1/k, a random pick among them). */
  shortest: number;
  /** Expected score of "pick the longest", ties likewise. */
  longest: number;
}

/**
 * Credit the strategy "pick the option whose length is `pick` of all" earns on one question: 1 when the correct
 * option is alone at that extreme, 1/k when it ties with k−1 others, 0 otherwise. Length is in characters.
 */
export function extremeCredit(lengths: readonly number[], correct: number, pick: (...xs: number[]) => number): number {
  const target = pick(...lengths);
  if (lengths[correct] !== target) return 0;
  return 1 / lengths.filter((l) => l === target).length;
}

/** Share of questions the shortest- and longest-option strategies score, over the deck and by topic. */
export function lengthCues(questions: readonly CueQuestion[]): {
  deck: LengthCue;
  byTopic: Record<string, LengthCue>;
  byFile: Record<string, LengthCue>;
} {
  const sums = new Map<string, { singles: number; shortest: number; longest: number }>();
  const files = new Map<string, { singles: number; shortest: number; longest: number }>();
  const add = (key: string, s: number, l: number, into = sums) => {
    const t = into.get(key) ?? { singles: 0, shortest: 0, longest: 0 };
    t.singles++;
    t.shortest += s;
    t.longest += l;
    into.set(key, t);
  };
  for (const { file, topic, question: q } of questions) {
    if (q.kind !== 'single') continue;
    const lengths = q.options.map((o) => o.text.trim().length);
    const correct = q.options.findIndex((o) => o.correct);
    const s = extremeCredit(lengths, correct, Math.min);
    const l = extremeCredit(lengths, correct, Math.max);
    add('\0deck', s, l);
    add(topic, s, l);
    add(file, s, l, files);
  }
  const share = (t = { singles: 0, shortest: 0, longest: 0 }): LengthCue => ({
    singles: t.singles,
    shortest: t.singles ? t.shortest / t.singles : 0,
    longest: t.singles ? t.longest / t.singles : 0,
  });
  const byTopic: Record<string, LengthCue> = {};
  for (const [key, t] of [...sums].sort(([a], [b]) => a.localeCompare(b)))
    if (key !== '\0deck') byTopic[key] = share(t);
  const byFile: Record<string, LengthCue> = {};
  for (const [file, t] of files) byFile[file] = share(t);
  return { deck: share(sums.get('\0deck')), byTopic, byFile };
}

/** How often right and wrong options carry an absolute word (single and multiple choice). */
export interface AbsoluteCue {
  rightOptions: number;
  rightWithAbsolute: number;
  wrongOptions: number;
  wrongWithAbsolute: number;
  /** Expected score on single-choice questions of "strike the options with an absolute word, guess among the rest". */
  strikeScore: number;
  /** Expected score of a blind guess on the same questions, for comparison. */
  chanceScore: number;
  /** wrongWithAbsolute / wrongOptions − rightWithAbsolute / rightOptions, as a share (0.05 = 5 points; negative when right options carry more). */
  gap: number;
}

/** Counts options with an absolute word among right and wrong options. */
export function absoluteCues(questions: readonly CueQuestion[]): AbsoluteCue {
  const c = { rightOptions: 0, rightWithAbsolute: 0, wrongOptions: 0, wrongWithAbsolute: 0 };
  let singles = 0;
  let strike = 0;
  let chance = 0;
  for (const { question: q } of questions) {
    if (q.kind === 'numeric') continue;
    if (q.kind === 'single') {
      // Strike the sweeping options unless that would strike them all, then guess uniformly among the rest.
      const plain = q.options.filter((o) => absoluteWords(o.text).length === 0);
      const pool = plain.length ? plain : q.options;
      singles++;
      strike += pool.some((o) => o.correct) ? 1 / pool.length : 0;
      chance += 1 / q.options.length;
    }
    for (const o of q.options) {
      const hit = absoluteWords(o.text).length > 0 ? 1 : 0;
      if (o.correct) {
        c.rightOptions++;
        c.rightWithAbsolute += hit;
      } else {
        c.wrongOptions++;
        c.wrongWithAbsolute += hit;
      }
    }
  }
  const rate = (n: number, d: number) => (d ? n / d : 0);
  return {
    ...c,
    strikeScore: rate(strike, singles),
    chanceScore: rate(chance, singles),
    gap: rate(c.wrongWithAbsolute, c.wrongOptions) - rate(c.rightWithAbsolute, c.rightOptions),
  };
}

/** Select-all questions by number of options, then by number of correct options. */
export interface CountCue {
  multiples: number;
  /** e.g. `{ 5: { 1: 3, 2: 4, 4: 2 } }`: nine questions with 5 options, three of them with 1 correct. */
  byOptions: Record<number, Record<number, number>>;
  /** Over all select-all questions, by number of correct options. */
  byCorrect: Record<number, number>;
  /** Questions where all options but one are correct. */
  allButOne: number;
}

/** The distribution of correct-option counts in select-all questions. */
export function countCues(questions: readonly CueQuestion[]): CountCue {
  const out: CountCue = { multiples: 0, byOptions: {}, byCorrect: {}, allButOne: 0 };
  for (const { question: q } of questions) {
    if (q.kind !== 'multiple') continue;
    const n = q.options.length;
    const k = q.options.filter((o) => o.correct).length;
    out.multiples++;
    const row = (out.byOptions[n] ??= {});
    row[k] = (row[k] ?? 0) + 1;
    out.byCorrect[k] = (out.byCorrect[k] ?? 0) + 1;
    if (k === n - 1) out.allButOne++;
  }
  return out;
}

/** Every cue measure of a set of questions. */
export interface CueReport {
  length: ReturnType<typeof lengthCues>;
  absolute: AbsoluteCue;
  counts: CountCue;
}

/** Measures every cue. */
export function measureCues(questions: readonly CueQuestion[]): CueReport {
  return { length: lengthCues(questions), absolute: absoluteCues(questions), counts: countCues(questions) };
}

const pct = (share: number) => `${(share * 100).toFixed(0)}%`;

/** One message per cue above the bar, each saying how to fix it. */
export function cueProblems(r: CueReport): string[] {
  const problems: string[] = [];
  const max = CUE_BAR.lengthShareMax;
  const scopes: [string, LengthCue][] = [
    ['the deck', r.length.deck],
    ...Object.entries(r.length.byTopic).map(([t, c]) => [`topic ${t}`, c] as [string, LengthCue]),
  ];
  for (const [scope, c] of scopes)
    for (const which of ['shortest', 'longest'] as const)
      if (c[which] > max)
        problems.push(
          `Cue: in ${scope}, "pick the ${which} option" scores ${pct(c[which])} of ${c.singles} single-choice questions (max ${pct(max)}). Rewrite questions whose right answer is the ${which}: give the wrong options specific, plausible content of similar length${which === 'shortest' ? ', and let the right one be the longest sometimes' : ''}.`,
        );
  for (const [file, c] of Object.entries(r.length.byFile)) {
    if (c.singles < CUE_BAR.cardMinSingles) continue;
    for (const which of ['shortest', 'longest'] as const)
      if (c[which] > CUE_BAR.cardLengthShareMax)
        problems.push(
          `${file}: "pick the ${which} option" scores ${pct(c[which])} of its ${c.singles} single-choice questions (max ${pct(CUE_BAR.cardLengthShareMax)} within one card or lab). Rewrite one so its right answer is not the ${which}.`,
        );
  }
  const a = r.absolute;
  if (a.gap > CUE_BAR.absoluteGapMax)
    problems.push(
      `Cue: ${pct(a.wrongWithAbsolute / a.wrongOptions)} of wrong options but ${pct(a.rightWithAbsolute / a.rightOptions)} of right ones carry an absolute word (${ABSOLUTE_WORDS.join(', ')}); the gap is ${(a.gap * 100).toFixed(1)} points (max ${CUE_BAR.absoluteGapMax * 100}). Turn sweeping distractors into specific wrong claims, and state right options with their precise qualifier where one is true.`,
    );
  if (-a.gap > CUE_BAR.absoluteGapMax)
    problems.push(
      `Cue: ${pct(a.rightWithAbsolute / a.rightOptions)} of right options but ${pct(a.wrongWithAbsolute / a.wrongOptions)} of wrong ones carry an absolute word; right options lead by ${(-a.gap * 100).toFixed(1)} points (max ${CUE_BAR.absoluteGapMax * 100}), so "pick the sweeping one" scores. Reword some right options without the absolute, or let some wrong ones make a sweeping claim that is false.`,
    );
  const m = r.counts;
  for (const [k, n] of Object.entries(m.byCorrect))
    if (n / m.multiples > CUE_BAR.correctCountShareMax)
      problems.push(
        `Cue: ${n} of ${m.multiples} select-all questions (${pct(n / m.multiples)}) have exactly ${k} correct option(s) (max ${pct(CUE_BAR.correctCountShareMax)}). Change some to another count, rewriting an option's substance so it becomes right or wrong.`,
      );
  for (const [n, row] of Object.entries(m.byOptions)) {
    const group = Object.values(row).reduce((x, y) => x + y, 0);
    if (group < CUE_BAR.correctCountGroupMin) continue;
    for (const [k, c] of Object.entries(row))
      if (c / group > CUE_BAR.correctCountShareMax)
        problems.push(
          `Cue: ${c} of the ${group} select-all questions with ${n} options (${pct(c / group)}) have exactly ${k} correct (max ${pct(CUE_BAR.correctCountShareMax)}). Change some of them to another count by rewriting an option's substance.`,
        );
  }
  if (m.multiples && m.allButOne / m.multiples > CUE_BAR.allButOneShareMax)
    problems.push(
      `Cue: ${m.allButOne} of ${m.multiples} select-all questions (${pct(m.allButOne / m.multiples)}) have all options but one correct (max ${pct(CUE_BAR.allButOneShareMax)}). Make a second option a specific wrong claim, or drop the odd one out and make two fewer right.`,
    );
  return problems;
}

/** The measures as lines for `npm run content:check`. */
export function cueLines(r: CueReport): string[] {
  const len = (c: LengthCue) => `shortest ${pct(c.shortest)} · longest ${pct(c.longest)} (${c.singles})`;
  const a = r.absolute;
  const dist = Object.entries(r.counts.byOptions)
    .map(([n, row]) => `${n} options ${JSON.stringify(row)}`)
    .join(' · ');
  return [
    `cue length (single choice, share a strategy scores, bar ${pct(CUE_BAR.lengthShareMax)}): deck ${len(r.length.deck)}`,
    ...Object.entries(r.length.byTopic).map(([t, c]) => `  ${t}: ${len(c)}`),
    `  cards and labs where one length strategy scores over ${pct(CUE_BAR.cardLengthShareMax)}: ${
      Object.values(r.length.byFile).filter(
        (c) => c.singles >= CUE_BAR.cardMinSingles && Math.max(c.shortest, c.longest) > CUE_BAR.cardLengthShareMax,
      ).length
    } of ${Object.keys(r.length.byFile).length}`,
    `cue absolute words (bar ±${CUE_BAR.absoluteGapMax * 100} points): wrong options ${a.wrongWithAbsolute}/${a.wrongOptions} (${pct(a.wrongWithAbsolute / (a.wrongOptions || 1))}) · right options ${a.rightWithAbsolute}/${a.rightOptions} (${pct(a.rightWithAbsolute / (a.rightOptions || 1))}) · gap ${(a.gap * 100).toFixed(1)} points · striking them and guessing scores ${pct(a.strikeScore)} of single choice (chance ${pct(a.chanceScore)})`,
    `cue select-all correct counts (bar: no count over ${pct(CUE_BAR.correctCountShareMax)} overall or per option count with ≥ ${CUE_BAR.correctCountGroupMin} questions, all-but-one ≤ ${pct(CUE_BAR.allButOneShareMax)}): ${JSON.stringify(r.counts.byCorrect)} · all but one ${r.counts.allButOne}/${r.counts.multiples} · by options: ${dist}`,
  ];
}
