/**
 * `npm run bench`: every benchmark in one Markdown report, printed and written to bench/report.md.
 * Each section names the command that reproduces its figures.
 *   1. key figures against their goals and budgets (with ratios)
 *   2. bytes per page type and the precache (bench/bytes.ts); time until a phone's first visit works offline
 *      (bench/offline-ready.ts, --only=offline)
 *   2b. explorable figures: JS on first use per figure, card JS before any is visible; diagram sizes
 *       (bench/figures.ts)
 *   3. Lighthouse, mobile and desktop, median of 3 (bench/lighthouse.ts); mobile home and card again
 *      for the /saturate/ build over HTTPS (dist-base/, as GitHub Pages serves it)
 *   4. build time, real deck vs a generated 1,000-card deck (bench/build.ts)
 *   5. lab server (bench/server.ts), progress store in Node (bench/progress.ts) and in Chromium
 *      (bench/progress-browser.ts, when present)
 *   6. fleet audit against a real Prometheus at 64, 256 and 1,024 GPUs (bench/fleet.ts)
 *   6b. the fleet audit on the independent 512-GPU cluster: verdicts and hours against the truth
 *       (bench/fleet-independent.ts, --only=fleet-independent); its cost against a plain avg_over_time at 512, 2,048
 *       and 10,000 GPUs on each engine (bench/fleet-scale.ts, --only=fleet-scale); 10,000 GPUs over 7 days through the
 *       rules on VictoriaMetrics and Prometheus (bench/fleet-week.ts, --only=fleet-week)
 *   7. diagnosis on real telemetry, at fleet resolution and on the simulator (bench/diagnosis.ts)
 *   8. sync server on SQLite and PostgreSQL (bench/sync.ts, --only=sync; --sync-accounts=N, default 100)
 *   8b. sync in the browser: encrypt and decrypt 10,000 events in Chromium, 1× and 4× CPU throttling
 *      (bench/sync-browser.ts, --only=sync; needs no build)
 *   9. /trace/ against its budgets in Chromium: JS before a file, a 100 MB trace, the Worker's peak memory,
 *      the phone profile on 20 MB (bench/trace-browser.ts, --only=trace)
 * Flags: --skip-build (reuse dist/ and dist-base/), --runs=N (Lighthouse runs per page, default 3),
 *        --only=bytes,offline,figures,lighthouse,build,server,fleet,fleet-independent,fleet-scale,fleet-week,progress,diagnosis,
 *        sync,trace (comma-separated sections; diagnosis, sync and the fleet sections need no build).
 * Takes ~12–15 minutes on 2 cores, most of it Lighthouse, without the fleet sections of large clusters: fleet-week
 * alone writes 467 M samples into each engine (~8 minutes for VictoriaMetrics, ~22 for Prometheus's remote write).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { chromiumPath } from './chromium.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const only = flag('only')?.split(',');
const want = (s: string) => !only || only.includes(s);
const runs = Number(flag('runs') ?? 3);
const log = (s: string) => console.error(`bench: ${s}`);
const t0 = Date.now();
const KB = 1024;

const NO_SITE = new Set(['diagnosis', 'fleet', 'fleet-independent', 'fleet-scale', 'fleet-week', 'sync']);
const needsSite = !only || only.some((s) => !NO_SITE.has(s));
for (const [dir, extra] of [
  ['dist', {}],
  // The same site under a sub-path, for Lighthouse over HTTPS as a phone gets it from GitHub Pages.
  ['dist-base', { BASE_PATH: '/saturate/', OUT_DIR: 'dist-base' }],
] as const) {
  if (!needsSite || (args.includes('--skip-build') && existsSync(`${dir}/sw.js`))) continue;
  log(`astro build → ${dir}/`);
  const r = spawnSync('npx', ['astro', 'build', '--silent'], {
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...extra },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const chromium = (() => {
  const r = spawnSync(chromiumPath() ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
})();
const sections: string[] = [];
const key: string[] = [];
const keyRow = (measure: string, value: string, goal: string, ratio: string, command: string) =>
  key.push(`| ${measure} | ${value} | ${goal} | ${ratio} | \`${command}\` |`);
const section = (title: string, command: string, body: string, note = '') =>
  sections.push(`## ${title}\n\nCommand: \`${command}\`${note ? `\n\n${note}` : ''}\n\n${body}`);
async function guarded(name: string, fn: () => Promise<void>): Promise<void> {
  const s = Date.now();
  try {
    await fn();
  } catch (err) {
    log(`${name} failed: ${(err as Error).message}`);
    sections.push(`## ${name}\n\nNot measured: ${(err as Error).message.split('\n')[0]}`);
  }
  log(`${name}: ${((Date.now() - s) / 1000).toFixed(0)} s`);
}

if (want('bytes')) {
  await guarded('Bytes per page type', async () => {
    log('bytes per page type (Chromium)');
    const { benchBytes } = await import('../bench/bytes.ts');
    const { rows, precache, markdown } = await benchBytes();
    section(
      'Bytes per page type',
      'node bench/bytes.ts',
      markdown,
      'First visit in Chromium at 390×844, service worker blocked; gzip = zlib level 6 per response; KB = 1024 bytes. “At load” is before anything is scrolled; the card’s quiz hydrates only when scrolled into view. The page’s inline scripts are counted in its HTML.',
    );
    const card = rows.find((r) => r.page === 'card');
    const home = rows.find((r) => r.page === 'home');
    const budget = (n: number, max: number) =>
      `${n <= max ? 'within' : 'OVER'} ${max} KB budget (${((100 * n) / max).toFixed(0)}%)`;
    if (card) {
      keyRow(
        'card page JS before the quiz (gzip)',
        `${(card.jsLoad / KB).toFixed(1)} KB`,
        budget(card.jsLoad / KB, 35),
        `${(card.jsLoad / KB / 34.5).toFixed(2)}× a Starlight docs page (34.5 KB)`,
        'node bench/bytes.ts',
      );
      keyRow(
        'card page JS after the quiz hydrates (gzip)',
        `${(card.js[1] / KB).toFixed(1)} KB`,
        budget(card.js[1] / KB, 85),
        `${(card.js[1] / card.jsLoad).toFixed(1)}× before`,
        'node bench/bytes.ts',
      );
    }
    if (home)
      keyRow(
        'home page JS (gzip)',
        `${(home.js[1] / KB).toFixed(1)} KB`,
        budget(home.js[1] / KB, 100),
        '',
        'node bench/bytes.ts',
      );
    keyRow(
      'service worker precache, as downloaded (gzip)',
      `${(precache.wire / KB / KB).toFixed(2)} MB, ${precache.files} files (${(precache.bytes / KB / KB).toFixed(2)} MB uncompressed)`,
      `${precache.wire <= 4 * KB * KB ? 'within' : 'OVER'} 4 MB budget (${((100 * precache.wire) / (4 * KB * KB)).toFixed(0)}%)`,
      '',
      'node bench/bytes.ts',
    );
  });
}

if (want('offline')) {
  await guarded('Time until the app works offline', async () => {
    log('first visit to offline on a phone profile (Chromium, throttled)');
    const { benchOfflineReady, medianRun } = await import('../bench/offline-ready.ts');
    const tries = await benchOfflineReady(process.cwd(), 'dist', runs);
    const m = medianRun(tries);
    section(
      'Time until the app works offline',
      'node bench/offline-ready.ts',
      `| median | runs | downloaded | requests |\n|---|---|---|---|\n| ${m.seconds.toFixed(1)} s | ${tries.map((r) => r.seconds.toFixed(1)).join(', ')} s | ${(m.bytes / KB / KB).toFixed(2)} MB | ${m.requests} |`,
      'From opening the home page to the service worker active and in control (its whole precache stored), 390×844, through a proxy that adds a 150 ms round trip per request and shares one 1.6 Mbit/s downlink (slow 4G), with DevTools’ 4× CPU slowdown on the page (the worker’s own thread is not slowed).',
    );
    keyRow(
      'first visit to offline, slow 4G, 4× page CPU',
      `${m.seconds.toFixed(1)} s (${(m.bytes / KB / KB).toFixed(2)} MB, ${m.requests} requests)`,
      `${m.seconds < 20 ? 'within' : 'OVER'} 20 s goal`,
      '',
      'node bench/offline-ready.ts',
    );
  });
}

if (want('figures')) {
  await guarded('Explorable figures and diagrams', async () => {
    log('figures: JS on first use, card JS before a figure is visible (Chromium)');
    const { benchFigures } = await import('../bench/figures.ts');
    const { rows, markdown } = await benchFigures();
    section(
      'Explorable figures and diagrams',
      'node bench/figures.ts',
      markdown,
      'First visit in Chromium at 390×844, service worker blocked; gzip = zlib level 6 per response; KB = 1024 bytes. “On first use” is what a figure fetches when it nears the viewport (the shared hydration code, its module and its imports), measured in the first card that places it; the card column is everything that card ran before any figure or the quiz was visible. Diagrams are inline SVG: no request, no script.',
    );
    const worst = rows.reduce((a, r) => (r.ownGzip > a.ownGzip ? r : a), rows[0]!);
    const before = rows.reduce((a, r) => (r.pageBeforeGzip > a.pageBeforeGzip ? r : a), rows[0]!);
    keyRow(
      `largest figure JS on first use (${worst.figure}, gzip)`,
      `${(worst.ownGzip / KB).toFixed(2)} KB`,
      `${worst.ownGzip <= 8 * KB ? 'within' : 'OVER'} 8 KB budget (${((100 * worst.ownGzip) / (8 * KB)).toFixed(0)}%)`,
      '',
      'node bench/figures.ts',
    );
    keyRow(
      `card JS before a figure or the quiz is visible (worst: ${before.cards[0]}, gzip)`,
      `${(before.pageBeforeGzip / KB).toFixed(2)} KB`,
      `${before.pageBeforeGzip <= 10 * KB ? 'within' : 'OVER'} 10 KB budget (${((100 * before.pageBeforeGzip) / (10 * KB)).toFixed(0)}%)`,
      '',
      'node bench/figures.ts',
    );
  });
}

if (want('lighthouse')) {
  await guarded('Lighthouse', async () => {
    log(`Lighthouse, ${runs} runs per page and form factor`);
    const { benchLighthouse } = await import('../bench/lighthouse.ts');
    const { rows, markdown, command } = await benchLighthouse({ runs, log });
    section(
      `Lighthouse 13 (${chromium}), median of ${runs}`,
      command,
      markdown,
      'Mobile is Lighthouse’s default (simulated slow 4G, 4× CPU slowdown); desktop is its desktop preset. The median run is the one with the median performance score. Scores are 0–100; LCP and TBT are simulated from the trace, so they follow the load on this machine’s 2 cores.',
    );
    for (const r of rows.filter((x) => x.page === 'home' || x.page === 'card' || x.page === 'figure card')) {
      const s = r.scores;
      const all = [s.performance, s.accessibility, s['best-practices'], s.seo];
      keyRow(
        `Lighthouse ${r.formFactor}, ${r.page}: perf / a11y / best practices / SEO`,
        all.join(' / '),
        'goal 100 in all four (a Starlight docs page does)',
        `${all.filter((x) => x === 100).length} of 4 at 100`,
        'node bench/lighthouse.ts',
      );
    }
  });
  await guarded('Lighthouse, sub-path over HTTPS', async () => {
    log(`Lighthouse over HTTPS under /saturate/, ${runs} runs per page`);
    const { benchLighthouse, lighthousePages } = await import('../bench/lighthouse.ts');
    const pages = lighthousePages('dist-base').filter((p) => p.page === 'home' || p.page === 'card');
    const { rows, markdown } = await benchLighthouse({
      runs,
      log,
      pages,
      formFactors: ['mobile'],
      host: 'https-subpath',
    });
    section(
      `Lighthouse 13 over HTTPS under /saturate/ (${chromium}), median of ${runs}`,
      'node bench/lighthouse.ts 3 home,card https-subpath',
      markdown,
      'The BASE_PATH=/saturate/ build (dist-base/) from the static HTTPS test host (test/https/host.ts: a certificate made per run, trusted by SPKI; the build’s _headers applied), mobile preset.',
    );
    for (const r of rows) {
      const s = r.scores;
      const all = [s.performance, s.accessibility, s['best-practices'], s.seo];
      keyRow(
        `Lighthouse mobile over HTTPS under /saturate/, ${r.page}: perf / a11y / best practices / SEO`,
        all.join(' / '),
        'goal 100 in all four, as the root build',
        `${all.filter((x) => x === 100).length} of 4 at 100`,
        'node bench/lighthouse.ts 3 home,card https-subpath',
      );
    }
  });
}

if (want('build')) {
  await guarded('Build time', async () => {
    log('build time: real deck and a generated deck of 1,000 cards');
    const { benchBuild } = await import('../bench/build.ts');
    const { runs: b, markdown } = await benchBuild(1000, log);
    section(
      'Build time',
      'node bench/build.ts 1000',
      markdown,
      'One `astro build` each, in a temporary copy of the project (cold: no .astro cache), wall clock.',
    );
    const [real, gen] = b;
    if (real && gen)
      keyRow(
        'build: 1,000 cards vs the real deck',
        `${gen.seconds.toFixed(1)} s vs ${real.seconds.toFixed(1)} s`,
        '',
        `${(gen.seconds / real.seconds).toFixed(1)}× the time for ${(gen.cards / real.cards).toFixed(1)}× the cards`,
        'node bench/build.ts 1000',
      );
  });
}

if (want('server')) {
  await guarded('Lab server', async () => {
    log('lab server');
    const { benchServer } = await import('../bench/server.ts');
    const { markdown } = await benchServer(10);
    section('Lab server', 'node bench/server.ts 10', markdown);
    const { benchStaticCompress } = await import('../bench/static-compress.ts');
    section(
      'Lab server: compressing the site on a first visit',
      'node bench/static-compress.ts',
      benchStaticCompress().markdown,
    );
  });
}

if (want('sync')) {
  await guarded('Sync server', async () => {
    const accounts = Number(flag('sync-accounts') ?? 100);
    log(`sync server: ${accounts} accounts × 10,000 events on SQLite and PostgreSQL`);
    const { benchSync } = await import('../bench/sync.ts');
    const { rows, markdown } = await benchSync({ accounts }, log);
    section(
      'Sync server (SQLite and PostgreSQL 15)',
      `node bench/sync.ts --accounts=${accounts}`,
      markdown,
      'Items generated through the storage interface (random bytes as ciphertext, 150-byte events). First sync: one account\'s 10,000 events in pages of 5,000 over loopback HTTP, median of 3 accounts; "server" is the Server-Timing the server reports. Incremental: 200 clients, each pushing 10 events and pulling what is new, 10 times, 0–1 s apart. Size: the SQLite file with its WAL, or pg_database_size, divided by the events stored.',
    );
    const sqlite = rows.find((r) => r.db === 'SQLite');
    if (sqlite) {
      keyRow(
        'sync: first sync of 10,000 events, server time (SQLite)',
        `${sqlite.firstSyncServerMs.toFixed(0)} ms`,
        '≤ 1,000 ms',
        `${(sqlite.firstSyncServerMs / 1000).toFixed(2)}× the goal`,
        'node bench/sync.ts',
      );
      keyRow(
        'sync: first sync on the wire, gzip',
        `${(sqlite.firstSyncGzipBytes / 1024 / 1024).toFixed(2)} MB`,
        '≤ 2 MB',
        `${(sqlite.firstSyncGzipBytes / 1024 / 1024 / 2).toFixed(2)}× the goal`,
        'node bench/sync.ts',
      );
      keyRow(
        'sync: first sync on the wire, gzip, history left compacted',
        `${(sqlite.compactedGzipBytes / 1024 / 1024).toFixed(2)} MB`,
        '≤ 2 MB',
        `${(sqlite.compactedGzipBytes / 1024 / 1024 / 2).toFixed(2)}× the goal`,
        'node bench/sync.ts',
      );
      keyRow(
        'sync: incremental p99, 200 clients (SQLite)',
        `${sqlite.incrementalP99.toFixed(0)} ms`,
        '≤ 50 ms',
        `${(sqlite.incrementalP99 / 50).toFixed(2)}× the goal`,
        'node bench/sync.ts',
      );
    }
  });
}

if (want('fleet')) {
  await guarded('Fleet audit', async () => {
    log('fleet audit against a real Prometheus: 64, 256 and 1,024 GPUs');
    const { benchFleet, fleetConfusion } = await import('../bench/fleet.ts');
    const { rows, markdown } = await benchFleet([64, 256, 1024], log);
    const matrix = await fleetConfusion();
    section(
      'Fleet audit (Prometheus 2.42, 1 h window, 30 s scrapes backfilled)',
      'node bench/fleet.ts 64 256 1024',
      `${markdown}\n\n${matrix.markdown}`,
      'One refresh after a warm-up. "Prometheus" is the wall time with a query in flight; "Saturate" is the rest of the audit (parsing, building messages, the diagnosis per GPU and per segment). "Page" is /fleet/ in Chromium at 390×844 handed that report as its /api/fleet answer: from the response to the report in the DOM (JSON parse and render), and to the next paint; median of 3 loads.',
    );
    const { benchRulesPath, rulesBenchMarkdown } = await import('../bench/fleet-rules.ts');
    section(
      'Fleet audit through the recording rules (Prometheus 2.42, 24 h window, 30 s scrapes backfilled)',
      'node bench/fleet-rules.ts 64 24',
      rulesBenchMarkdown([await benchRulesPath(64, 86_400, log)]),
      'Prometheus wall time with a query in flight, median of 3 after a warm-up: one audit through the 1-minute recording rules, the same audit through raw series, and a plain avg_over_time(DCGM_FI_DEV_GPU_UTIL[24h]) over the same GPUs.',
    );
    const big = rows.at(-1);
    if (big)
      keyRow(
        `fleet audit, ${big.gpus} GPUs, 1 h`,
        `${big.queries} queries, ${((big.prometheusMs + big.saturateMs) / 1000).toFixed(1)} s`,
        'a handful of queries per refresh, not one per GPU',
        `${(big.queries / big.gpus).toFixed(3)} queries per GPU`,
        'node bench/fleet.ts',
      );
  });
}

if (want('fleet-independent')) {
  await guarded('Fleet audit on the independent cluster', async () => {
    log('fleet audit on the independent cluster: 512 GPUs over 24 h');
    const { benchIndependent } = await import('../bench/fleet-independent.ts');
    const r = await benchIndependent(512, 24, log);
    section(
      'Fleet audit on the independent cluster (512 GPUs, 24 h, 30 s scrapes, Prometheus 2.42)',
      'node bench/fleet-independent.ts 512 24',
      r.markdown,
      'Truth, "right" and "can\'t tell" as defined in test/fleet/independent/score.ts; the test asserts ≥ 95% right, none wrong at high confidence, hours within 5% (test/fleet/independent.test.ts).',
    );
  });
}

if (want('fleet-scale')) {
  await guarded('Fleet audit cost at scale', async () => {
    log('fleet audit vs a plain avg_over_time: 512, 2,048 and 10,000 GPUs');
    const { benchScale } = await import('../bench/fleet-scale.ts');
    const { markdown } = await benchScale([512, 2048, 10_000], ['prometheus', 'victoria-metrics'], [], log);
    section(
      'Fleet audit against a plain query, by fleet size and engine',
      'node bench/fleet-scale.ts --sizes=512,2048,10000',
      markdown,
      'Goal (issue #26): with the recording rules, a 24 h audit costs ≤ 10× the plain query.',
    );
  });
}

if (want('fleet-week')) {
  await guarded('Fleet audit of 10,000 GPUs over 7 days', async () => {
    log('fleet audit of 10,000 GPUs over 7 days through the recording rules, on VictoriaMetrics and Prometheus');
    const { benchWeek } = await import('../bench/fleet-week.ts');
    const { markdown } = await benchWeek(10_000, 7, log);
    section(
      'Fleet audit of 10,000 GPUs over 7 days (recording rules, VictoriaMetrics and Prometheus)',
      'node bench/fleet-week.ts --gpus=10000 --days=7',
      markdown,
      'Goal (issue #26): 10,000 GPUs over 7 days finish under the default timeout. The week is written as the rules hold it (test/fleet/independent/rules-import.ts), with raw scrapes for the last 7 minutes: imported into VictoriaMetrics, sent to Prometheus through its remote-write receiver (rules-remote-write.ts).',
    );
  });
}

if (want('progress')) {
  await guarded('Progress store (Node)', async () => {
    log('progress store (Node)');
    const { benchProgress } = await import('../bench/progress.ts');
    const r = await benchProgress();
    section(
      `Progress store (Node ${process.version}, fake-indexeddb)`,
      'node bench/progress.ts',
      ['| measure | value |', '|---|---|', ...r.rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n'),
    );
  });
  if (existsSync('bench/progress-browser.ts')) {
    await guarded('Progress store (Chromium)', async () => {
      log('progress store (Chromium)');
      const { benchProgressBrowser } = await import('../bench/progress-browser.ts');
      const r = await benchProgressBrowser();
      section(
        `Progress store (${r.browser})`,
        'node bench/progress-browser.ts',
        ['| measure | value |', '|---|---|', ...r.rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n'),
      );
    });
  }
}

if (want('sync')) {
  await guarded('Sync in the browser', async () => {
    log('sync: encrypt and decrypt 10,000 events in Chromium');
    const { benchSyncBrowser } = await import('../bench/sync-browser.ts');
    const r = await benchSyncBrowser();
    section(
      `Sync in the browser (${r.browser})`,
      'node bench/sync-browser.ts',
      ['| measure | value |', '|---|---|', ...r.rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n'),
    );
  });
}

if (want('diagnosis')) {
  await guarded('Diagnosis', async () => {
    log('diagnosis: real telemetry, fleet resolution, simulator');
    const { benchDiagnosis } = await import('../bench/diagnosis.ts');
    const r = benchDiagnosis();
    section(
      'Diagnosis',
      'node bench/diagnosis.ts',
      r.markdown,
      'Right = the kind the thread established (or another reading it accepts); can’t tell is counted apart. Cases, sources and rejected threads: test/fixtures/real/.',
    );
    keyRow(
      'diagnosis: real cases wrong with high confidence',
      String(r.realWrongHigh),
      'goal 0 (asserted in test/unit/diagnose-real.test.ts)',
      '',
      'node bench/diagnosis.ts',
    );
    keyRow(
      'diagnosis: simulator noisy traces right',
      `${r.simRightPct.toFixed(1)}%`,
      'goal ≥ 99%',
      '',
      'node bench/diagnosis.ts',
    );
  });
}

if (want('trace')) {
  await guarded('Trace reader (Chromium)', async () => {
    log('trace reader: 100 MB desktop, 20 MB phone profile (Chromium)');
    const { benchTraceBrowser, traceBrowserMarkdown } = await import('../bench/trace-browser.ts');
    const r = await benchTraceBrowser();
    section(
      `Trace reader (${r.browser})`,
      'node bench/trace-browser.ts',
      traceBrowserMarkdown(r),
      'Traces are HTA’s sampled rank 0 (real, MIT) repeated step after step (bench/trace-gen.ts), opened with the page’s file picker; the time is the page’s own “Read 1 rank in X s”. Memory: the Worker isolate’s JS heap plus ArrayBuffer backing stores (CDP Runtime.getHeapUsage every 20 ms); native buffers of the file reader and DecompressionStream are not in it. Timings follow the load on this shared machine.',
    );
    const cmd = 'node bench/trace-browser.ts';
    const within = (x: number, max: number) => `${x <= max ? 'within' : 'OVER'} budget`;
    keyRow(
      '/trace/ JS before a file (gzip)',
      `${(r.jsBeforeFileBytes / KB).toFixed(1)} KB`,
      `${within(r.jsBeforeFileBytes / KB, 15)} 15 KB`,
      `${(r.jsBeforeFileBytes / KB / 15).toFixed(2)}× budget`,
      cmd,
    );
    keyRow(
      `trace ${(r.desktop.bytes / 1e6).toFixed(0)} MB parsed + analysed, desktop Chromium`,
      `${r.desktop.seconds.toFixed(1)} s`,
      `${within(r.desktop.seconds, 5)} 5 s`,
      `${(r.desktop.seconds / 5).toFixed(2)}× budget`,
      cmd,
    );
    const mem = r.desktop.workerPeakBytes;
    if (mem !== null)
      keyRow(
        'trace Worker peak memory / trace size',
        `${(mem / 1e6).toFixed(0)} MB = ${(mem / r.desktop.bytes).toFixed(2)}×`,
        `${within(mem / r.desktop.bytes, 2)} 2×`,
        `${(mem / r.desktop.bytes / 2).toFixed(2)}× budget`,
        cmd,
      );
    keyRow(
      `trace ${(r.phone.bytes / 1e6).toFixed(0)} MB, phone profile (4× CPU, 390×844)`,
      `${r.phone.seconds.toFixed(1)} s`,
      'works',
      `4× CPU on ${r.phone.throttled || 'nothing'}`,
      cmd,
    );
  });
}

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).stdout.trim()
  ? ' + uncommitted changes'
  : '';
const report = [
  '# Saturate benchmark report',
  '',
  `Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · commit ${commit}${dirty} · Node ${process.version} · ${chromium} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'} · ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
  '',
  '## Key figures',
  '',
  '| measure | value | goal / budget | ratio | command |',
  '|---|---|---|---|---|',
  ...key,
  '',
  sections.join('\n\n'),
  '',
].join('\n');
writeFileSync('bench/report.md', report);
console.log(report);
log(`done in ${((Date.now() - t0) / 60_000).toFixed(1)} min; written to bench/report.md`);
