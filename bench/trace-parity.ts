/**
 * Parity with Holistic Trace Analysis (HTA), side by side on the same traces and machine:
 *
 *   HTA_DIR=/path/to/HolisticTraceAnalysis node bench/trace-parity.ts [--runs N] [trace …]
 *
 * HTA runs from its source checkout (HTA_DIR) through bench/hta_driver.py with /usr/bin/python3 and
 * Debian's python3-pandas, -numpy, -networkx, -plotly, -psutil and -pydot. With no traces given, every
 * .json.gz and .json under HTA_DIR/tests/data is tried; those HTA itself cannot analyse are listed apart.
 * Prints a Markdown table: HTA's temporal breakdown and idle categories, ours, the largest differences
 * (percentage points), the times and their ratio, wall and CPU.
 *
 * What is timed, each side best of N runs in one process after its imports (N: --runs, default 3, and 20 for a
 * file under 1 MB, where one run takes milliseconds and noise decides a single one); the best wall time and the
 * best CPU time (user + system, all threads and, for HTA, its worker processes) are kept separately:
 * - HTA: `TraceAnalysis(trace_dir)` (it lists the folder, reads, inflates and parses the file and builds its
 *   frames, in its own pool of one process), `get_temporal_breakdown` and `get_idle_time_breakdown` for the
 *   rank. Not timed: Python's start-up and imports, copying the file into a folder of its own, printing.
 * - Ours: `parseTraceFile` (scripts/trace-file.ts: open, inflate, parse into the table) and `analyzeTraces`,
 *   which runs every analysis the report holds (HTA's six, the host-wait causes, the verdict), more than the two
 *   of HTA's that are timed. Not timed: Node's start-up and imports.
 * Each side's first run pays for its warm-up (JIT, caches) and is dropped when another run is faster; the same
 * holds for both. CPU time is the fairer figure on a shared, loaded machine, where wall time mostly measures the
 * wait for a core. BEFORE_DIR=<another checkout of this project> adds that checkout's parse + analysis time,
 * measured the same way in the same run (before/after a change). Targets: temporal within 0.5 pp, idle
 * categories within 1 pp, ours at least 10× faster.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { analyzeTraces, parseTraceStream, type ParsedTrace } from '../src/lib/trace/index.ts';
import { parseTraceFile } from '../scripts/trace-file.ts';

interface HtaResult {
  ok: boolean;
  error?: string;
  seconds: number;
  cpuSeconds: number;
  rank: number;
  temporal: { idlePct: number; computePct: number; nonComputePct: number };
  idle: { stream: number; category: 'host_wait' | 'kernel_wait' | 'other'; us: number }[];
}

const htaDir = process.env['HTA_DIR'];
if (!htaDir) {
  console.error('Set HTA_DIR to a checkout of github.com/facebookresearch/HolisticTraceAnalysis.');
  process.exit(1);
}
const python = process.env['PYTHON'] ?? '/usr/bin/python3';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : /\.json(\.gz)?$/.test(f) && statSync(p).size > 0 ? [p] : [];
  });
}

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string' } } });
const files = positionals.length ? positionals : walk(join(htaDir, 'tests/data')).sort();
/** Runs per side for `file`: --runs, else 3, and 20 for a file under 1 MB. */
const runsFor = (file: string) => (flags.runs ? Number(flags.runs) : statSync(file).size < 1e6 ? 20 : 3);
if (flags.runs && !(Number.isInteger(Number(flags.runs)) && Number(flags.runs) >= 1)) {
  console.error('--runs takes a whole number of runs, 1 or more.');
  process.exit(1);
}

function runHta(file: string): HtaResult {
  const out = execFileSync(python, [join(import.meta.dirname, 'hta_driver.py'), file, String(runsFor(file))], {
    env: { ...process.env, HTA_DIR: htaDir },
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as HtaResult;
}

type Lib = { analyzeTraces: typeof analyzeTraces; parseFile: (file: string) => Promise<ParsedTrace> };
const ourLib: Lib = { analyzeTraces, parseFile: (file) => parseTraceFile(file) };
const beforeDir = process.env['BEFORE_DIR'];
/** The other checkout's reader: its Node file reader where it has one, else its web-stream reader. */
async function loadBefore(dir: string): Promise<Lib> {
  const lib = (await import(join(dir, 'src/lib/trace/index.ts'))) as {
    analyzeTraces: typeof analyzeTraces;
    parseTraceStream: typeof parseTraceStream;
  };
  const fileReader = join(dir, 'scripts/trace-file.ts');
  if (existsSync(fileReader))
    return { analyzeTraces: lib.analyzeTraces, parseFile: (await import(fileReader)).parseTraceFile };
  const web = (file: string) =>
    Readable.toWeb(createReadStream(file, { highWaterMark: 1 << 20 })) as ReadableStream<Uint8Array>;
  return { analyzeTraces: lib.analyzeTraces, parseFile: (file) => lib.parseTraceStream(web(file)) };
}
const beforeLib = beforeDir ? await loadBefore(beforeDir) : null;

/** Ours: best wall and best CPU time of `runsFor(file)` runs of parse + analysis. */
async function runOurs(file: string, lib: Lib = ourLib) {
  let best = Infinity;
  let bestCpu = Infinity;
  let report;
  for (let k = 0; k < runsFor(file); k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const trace = await lib.parseFile(file);
    report = lib.analyzeTraces([{ label: basename(file), trace }]);
    best = Math.min(best, (performance.now() - t0) / 1000);
    const c = process.cpuUsage(c0);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
  }
  return { report: report!, seconds: best, cpuSeconds: bestCpu };
}

/** Each stream's category shares from microseconds (HTA's printed ratio is rounded to 0.01). */
function shares(rows: { stream: number; category: string; us: number }[]): Map<string, number> {
  const total = new Map<number, number>();
  for (const r of rows) total.set(r.stream, (total.get(r.stream) ?? 0) + r.us);
  return new Map(rows.map((r) => [`${r.stream}/${r.category}`, total.get(r.stream) ? r.us / total.get(r.stream)! : 0]));
}

const f2 = (x: number) => x.toFixed(2);
const lines = [
  `| trace | HTA idle / compute / non-compute % | ours | max Δ temporal (pp) | HTA host / kernel / other % (busiest stream) | ours | max Δ idle category (pp, all streams) | HTA s (CPU s) |${beforeLib ? ' before s (CPU s) |' : ''} ours s (CPU s) | speed ratio (CPU ratio) | runs |`,
  `|---|---|---|---|---|---|---|---|---|---|---|${beforeLib ? '---|' : ''}`,
];
const skipped: string[] = [];
for (const file of files) {
  const name = relative(join(htaDir, 'tests/data'), file);
  let hta: HtaResult;
  try {
    hta = runHta(file);
  } catch (e) {
    skipped.push(`${name}: HTA did not finish (${(e as Error).message.slice(0, 80)})`);
    continue;
  }
  if (!hta.ok) {
    skipped.push(`${name}: HTA: ${hta.error}`);
    continue;
  }
  let ours;
  let before;
  try {
    if (beforeLib) before = await runOurs(file, beforeLib);
    ours = await runOurs(file);
  } catch (e) {
    lines.push(
      `| ${name} | ${f2(hta.temporal.idlePct)} / … | ours failed: ${(e as Error).message.slice(0, 60)} | | | | | | | |`,
    );
    continue;
  }
  const r = ours.report.ranks[0]!;
  const t = r.temporal;
  const dT = Math.max(
    Math.abs(t.idlePct - hta.temporal.idlePct),
    Math.abs(t.computePct - hta.temporal.computePct),
    Math.abs(t.nonComputePct - hta.temporal.nonComputePct),
  );
  const theirs = shares(hta.idle);
  const mine = shares(
    r.idle.streams.flatMap((s) =>
      (['host_wait', 'kernel_wait', 'other'] as const).map((c) => ({
        stream: s.stream,
        category: c,
        us: s.byCategory[c].us,
      })),
    ),
  );
  let dI = 0;
  for (const k of new Set([...theirs.keys(), ...mine.keys()]))
    dI = Math.max(dI, 100 * Math.abs((theirs.get(k) ?? 0) - (mine.get(k) ?? 0)));
  const busiest = [...new Set(hta.idle.map((i) => i.stream))].sort(
    (a, b) =>
      hta.idle.filter((i) => i.stream === b).reduce((x, i) => x + i.us, 0) -
      hta.idle.filter((i) => i.stream === a).reduce((x, i) => x + i.us, 0),
  )[0];
  const cat = (m: Map<string, number>) =>
    ['host_wait', 'kernel_wait', 'other'].map((c) => (100 * (m.get(`${busiest}/${c}`) ?? 0)).toFixed(1)).join(' / ');
  lines.push(
    `| ${name} | ${f2(hta.temporal.idlePct)} / ${f2(hta.temporal.computePct)} / ${f2(hta.temporal.nonComputePct)} | ${f2(t.idlePct)} / ${f2(t.computePct)} / ${f2(t.nonComputePct)} | ${f2(dT)} | ${cat(theirs)} (stream ${busiest}) | ${cat(mine)} | ${f2(dI)} | ${hta.seconds.toFixed(2)} (${hta.cpuSeconds.toFixed(2)}) |${before ? ` ${before.seconds.toFixed(3)} (${before.cpuSeconds.toFixed(3)}) |` : ''} ${ours.seconds.toFixed(3)} (${ours.cpuSeconds.toFixed(3)}) | ${(hta.seconds / ours.seconds).toFixed(1)}× (${(hta.cpuSeconds / ours.cpuSeconds).toFixed(1)}×) | ${runsFor(file)} |`,
  );
  console.error(`done ${name}`);
}
console.log(lines.join('\n'));
if (skipped.length)
  console.log(`\nNot compared (HTA cannot analyse them):\n${skipped.map((s) => `- ${s}`).join('\n')}`);
