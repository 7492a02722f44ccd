/**
 * Build time: the real deck, then a generated deck of 1,000 cards (the real cards plus copies under
 * new slugs and question ids, so curated quizzes, the glossary and labs still find the ids they
 * reference). Each build runs `astro build` in its own temporary copy of the project (node_modules
 * linked), so nothing in the working tree (dist/, .astro/) is touched and both start equally cold.
 *
 *   node bench/build.ts [cards]              prints a Markdown table
 *   import { benchBuild } from './bench/build.ts'
 *
 * By hand: SATURATE_CONTENT_DIR=<dir with <topic>/<slug>.md> npx astro build
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
/** What `astro build` reads. */
const PROJECT = [
  'src',
  'content',
  'public',
  'astro.config.mjs',
  'package.json',
  'tsconfig.json',
  'pwa-assets.config.ts',
];

export interface BuildRun {
  deck: string;
  cards: number;
  questions: number;
  pages: number;
  seconds: number;
  distBytes: number;
  /** The question bank (fetched by practice quizzes, precached whole). */
  bankBytes: number;
}

function cardFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(dir, f))
    .sort();
}

/** Writes the real cards plus copies into `out`/<topic>/ until there are `total` cards. */
export function generateDeck(out: string, total = 1000): { cards: number; questions: number } {
  const real = cardFiles(join(root, 'content/cards'));
  let questions = 0;
  const write = (file: string, text: string) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    questions += (text.match(/^ {2}- id: /gm) ?? []).length;
  };
  for (const f of real) write(join(out, relative(join(root, 'content/cards'), f)), readFileSync(f, 'utf8'));
  for (let i = real.length; i < total; i++) {
    const src = real[i % real.length]!;
    const copy = Math.floor(i / real.length);
    const text = readFileSync(src, 'utf8')
      .replace(/^( {2}- id: )([a-z0-9-]+)$/gm, `$1$2-g${copy}`)
      .replace(/^title: "(.*)"$/m, `title: "$1 (copy ${copy})"`);
    write(join(out, relative(join(root, 'content/cards'), dirname(src)), `${basename(src, '.md')}-g${copy}.md`), text);
  }
  return { cards: Math.max(total, real.length), questions };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (f.isFile()) n += readFileSync(join(f.parentPath, f.name)).length;
  return n;
}

/** Builds a temporary copy of the project, optionally with SATURATE_CONTENT_DIR; returns the wall time. */
function timedBuild(
  deck: string,
  contentDir: string | null,
  cards: number,
  questions: number,
  precacheLimit?: number,
): BuildRun {
  const tmp = mkdtempSync(join(tmpdir(), 'saturate-build-'));
  try {
    for (const p of PROJECT) if (existsSync(join(root, p))) cpSync(join(root, p), join(tmp, p), { recursive: true });
    if (precacheLimit) {
      // The generated deck's question bank outgrows the precache's per-file limit: raise it in this copy only.
      const cfg = join(tmp, 'astro.config.mjs');
      const text = readFileSync(cfg, 'utf8');
      const patched = text.replace(
        /maximumFileSizeToCacheInBytes:[^,\n]+/,
        `maximumFileSizeToCacheInBytes: ${precacheLimit}`,
      );
      if (patched === text) throw new Error('astro.config.mjs has no maximumFileSizeToCacheInBytes to raise');
      writeFileSync(cfg, patched);
    }
    symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir');
    const env = {
      ...process.env,
      ASTRO_TELEMETRY_DISABLED: '1',
      ...(contentDir ? { SATURATE_CONTENT_DIR: contentDir } : {}),
    };
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build', '--silent'], {
      cwd: tmp,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`astro build (${deck}) failed:\n${(r.stdout + r.stderr).slice(-4000)}`);
    const dist = join(tmp, 'dist');
    const pages = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html')).length;
    return {
      deck,
      cards,
      questions,
      pages,
      seconds,
      distBytes: dirBytes(dist),
      bankBytes: existsSync(join(dist, 'bank.json')) ? readFileSync(join(dist, 'bank.json')).length : 0,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The per-file precache limit astro.config.mjs sets (bytes), if it is a plain expression. */
function precacheFileLimit(): number | null {
  const m = /maximumFileSizeToCacheInBytes:\s*([\d\s*]+)/.exec(readFileSync(join(root, 'astro.config.mjs'), 'utf8'));
  return m?.[1] ? m[1].split('*').reduce((p, x) => p * Number(x.trim()), 1) : null;
}

export async function benchBuild(
  total = 1000,
  log: (s: string) => void = () => {},
): Promise<{ runs: BuildRun[]; markdown: string }> {
  const real = cardFiles(join(root, 'content/cards'));
  const realQuestions = real.reduce((n, f) => n + (readFileSync(f, 'utf8').match(/^ {2}- id: /gm) ?? []).length, 0);
  log('build: real deck');
  const a = timedBuild('real deck', null, real.length, realQuestions);
  const deckDir = mkdtempSync(join(tmpdir(), 'saturate-deck-'));
  try {
    const gen = generateDeck(deckDir, total);
    log(`build: generated deck of ${gen.cards} cards`);
    const limit = precacheFileLimit();
    const b = timedBuild(`generated deck`, deckDir, gen.cards, gen.questions, 256 * 1024 * 1024);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    const rows = [a, b].map(
      (r) =>
        `| ${r.deck} | ${r.cards.toLocaleString('en')} | ${r.questions.toLocaleString('en')} | ${r.pages.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | ${((r.seconds * 1000) / r.pages).toFixed(0)} ms | ${mb(r.distBytes)} | ${mb(r.bankBytes)} |`,
    );
    const ratio = `| ratio | ${(b.cards / a.cards).toFixed(1)}× | ${(b.questions / a.questions).toFixed(1)}× | ${(b.pages / a.pages).toFixed(1)}× | ${(b.seconds / a.seconds).toFixed(1)}× | ${(b.seconds / b.pages / (a.seconds / a.pages)).toFixed(2)}× | ${(b.distBytes / a.distBytes).toFixed(1)}× | ${(b.bankBytes / a.bankBytes).toFixed(1)}× |`;
    const notes = [a, b]
      .filter((r) => limit && r.bankBytes > limit)
      .map(
        (r) =>
          `\n\n**${r.deck}: bank.json is ${mb(r.bankBytes)}, over the service worker's per-file precache limit (${mb(limit!)}, \`maximumFileSizeToCacheInBytes\` in astro.config.mjs): the real config fails this build, so this one ran with the limit raised in its temporary copy.**`,
      );
    const markdown =
      [
        '| deck | cards | questions | HTML pages | `astro build` wall time | per page | dist/ | bank.json |',
        '|---|---|---|---|---|---|---|---|',
        ...rows,
        ratio,
      ].join('\n') + notes.join('');
    return { runs: [a, b], markdown };
  } finally {
    rmSync(deckDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const total = Number(process.argv[2] ?? 1000);
  const { markdown } = await benchBuild(Number.isFinite(total) && total > 0 ? total : 1000, (s) => console.error(s));
  console.log(markdown);
}
