/**
 * Lighthouse 13 over the built site (a private copy of dist/ on the lab server, as `npm start` serves it,
 * or with `host: 'https-subpath'` the /saturate/ build in dist-base/ over HTTPS from the static test host,
 * test/https/host.ts, as a phone gets it from GitHub Pages; Chromium trusts its certificate by SPKI):
 * performance, accessibility, best practices, SEO, LCP, CLS, TBT; mobile (Lighthouse's default: Moto G
 * Power, slow 4G, 4× CPU, simulated) and desktop (its desktop preset); the median of 3 runs per page,
 * by performance score (single runs are noisy on 2 cores). One headless Chromium serves every run;
 * Lighthouse clears the origin's storage before each, so every run is a first visit.
 *
 *   node bench/lighthouse.ts [runs] [pages] [https-subpath]  prints a Markdown table; pages e.g. "stats,figure card"
 *   import { benchLighthouse } from './bench/lighthouse.ts'
 *
 * The same figures by hand, one run:
 *   CHROME_PATH=/usr/bin/chromium npx lighthouse <url> [--preset=desktop] \
 *     --only-categories=performance,accessibility,best-practices,seo \
 *     --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking"
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lighthouse, { desktopConfig } from 'lighthouse';
import { startSite } from '../test/e2e/site-server.ts';
import { chromiumPath } from '../scripts/chromium.ts';
import { startHttpsSite } from '../test/https/host.ts';

export const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface LighthouseRow {
  page: string;
  path: string;
  formFactor: 'mobile' | 'desktop';
  /** 0–100 per category, from the median run. */
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcpMs: number;
  cls: number;
  tbtMs: number;
  /** Performance scores of every run, for the spread. */
  runs: number[];
  /** Audits that lost points in the median run (id: score). */
  misses: string[];
}

/** A card that places two explorable figures (content/cards/meters/clocks-and-clock-event-reasons.md). */
export const FIGURE_CARD = '/cards/clocks-and-clock-event-reasons/';

/**
 * The pages to audit: home, a card, a card with two figures, the practice quiz, then stats and a lab page when this
 * build has them.
 */
export function lighthousePages(dist = 'dist'): { page: string; path: string }[] {
  const pages = [
    { page: 'home', path: '/' },
    { page: 'card', path: '/cards/gpu-util/' },
    { page: 'figure card', path: FIGURE_CARD },
    { page: 'practice quiz', path: '/practice/random/?seed=bench' },
  ];
  if (existsSync(join(dist, 'progress/index.html'))) pages.push({ page: 'stats', path: '/progress/' });
  const labs = join(dist, 'labs');
  if (existsSync(labs)) {
    const lab = readdirSync(labs, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(labs, d.name, 'index.html')))
      .map((d) => d.name)
      .sort()[0];
    if (lab) pages.push({ page: 'lab', path: `/labs/${lab}/` });
  }
  return pages;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function launchChrome(extraFlags: string[] = []): Promise<{ port: number; kill: () => void }> {
  const port = await freePort();
  const profile = mkdtempSync(join(tmpdir(), 'saturate-lh-'));
  const bin = chromiumPath() ?? '/usr/bin/chromium';
  const child: ChildProcess = spawn(
    bin,
    [
      ...CHROME_FLAGS,
      ...extraFlags,
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      '--no-first-run',
      '--disable-dev-shm-usage',
      'about:blank',
    ],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) break;
    } catch {
      /* starting */
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${bin} did not start with remote debugging`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    kill: () => {
      child.kill();
      setTimeout(() => rmSync(profile, { recursive: true, force: true }), 500).unref();
    },
  };
}

const median = <T>(xs: T[], key: (x: T) => number): T =>
  [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!;

/** Where the audited site is served from. */
export type LighthouseHost = 'lab-server' | 'https-subpath';

/** Serves the site for `host`: its URL prefix (no trailing slash), extra Chromium flags, and how to stop it. */
async function serve(host: LighthouseHost): Promise<{ prefix: string; flags: string[]; dispose: () => Promise<void> }> {
  if (host === 'lab-server') {
    const site = await startSite();
    return { prefix: site.url, flags: [], dispose: site.dispose };
  }
  const site = await startHttpsSite({ dir: 'dist-base', copy: true });
  return {
    prefix: site.url.replace(/\/$/, ''),
    flags: [`--ignore-certificate-errors-spki-list=${site.cert.spkiSha256}`],
    dispose: site.dispose,
  };
}

/** Runs Lighthouse `runs` times per page and form factor; returns the median runs. */
export async function benchLighthouse(
  opts: {
    runs?: number;
    pages?: { page: string; path: string }[];
    formFactors?: readonly ('mobile' | 'desktop')[];
    host?: LighthouseHost;
    log?: (s: string) => void;
  } = {},
): Promise<{ rows: LighthouseRow[]; markdown: string; command: string }> {
  const runs = opts.runs ?? 3;
  const log = opts.log ?? (() => {});
  const pages = opts.pages ?? lighthousePages();
  const site = await serve(opts.host ?? 'lab-server');
  const chrome = await launchChrome(site.flags);
  const rows: LighthouseRow[] = [];
  try {
    for (const formFactor of opts.formFactors ?? (['mobile', 'desktop'] as const)) {
      for (const p of pages) {
        const results: LighthouseRow[] = [];
        for (let i = 0; i < runs; i++) {
          const result = await lighthouse(
            `${site.prefix}${p.path}`,
            { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] },
            formFactor === 'desktop' ? desktopConfig : undefined,
          );
          if (!result) throw new Error(`lighthouse returned nothing for ${p.path}`);
          const { lhr } = result;
          if (lhr.runtimeError)
            throw new Error(`lighthouse ${p.path}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
          const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
          const misses = Object.values(lhr.categories).flatMap((c) =>
            c.auditRefs
              .filter((r) => r.weight > 0 && (lhr.audits[r.id]?.score ?? 1) < 1)
              .map((r) => `${r.id} ${lhr.audits[r.id]!.score}`),
          );
          results.push({
            page: p.page,
            path: p.path,
            formFactor,
            scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as LighthouseRow['scores'],
            lcpMs: lhr.audits['largest-contentful-paint']?.numericValue ?? Number.NaN,
            cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? Number.NaN,
            tbtMs: lhr.audits['total-blocking-time']?.numericValue ?? Number.NaN,
            runs: [],
            misses: [...new Set(misses)],
          });
          log(`lighthouse ${formFactor} ${p.path} run ${i + 1}/${runs}: performance ${score('performance')}`);
        }
        const mid = median(results, (r) => r.scores.performance * 1e6 - r.tbtMs);
        rows.push({ ...mid, runs: results.map((r) => r.scores.performance) });
      }
    }
  } finally {
    chrome.kill();
    await site.dispose();
  }
  const command = `CHROME_PATH=/usr/bin/chromium npx lighthouse <url> [--preset=desktop] --only-categories=${CATEGORIES.join(',')} --chrome-flags="${CHROME_FLAGS.join(' ')}"`;
  const markdown = [
    '| page | form factor | performance | accessibility | best practices | SEO | LCP | CLS | TBT | performance, each run | points lost (median run) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.page} \`${r.path}\` | ${r.formFactor} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores['best-practices']} | ${r.scores.seo} | ${(r.lcpMs / 1000).toFixed(2)} s | ${r.cls.toFixed(3)} | ${Math.round(r.tbtMs)} ms | ${r.runs.join(', ')} | ${r.misses.join(', ') || '—'} |`,
    ),
  ].join('\n');
  return { rows, markdown, command };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.argv[2] ?? 3);
  const only = process.argv[3]?.split(',');
  const pages = only ? lighthousePages().filter((p) => only.includes(p.page)) : undefined;
  const host = process.argv[4] === 'https-subpath' ? 'https-subpath' : 'lab-server';
  const { markdown } = await benchLighthouse({
    runs: Number.isFinite(runs) && runs > 0 ? runs : 3,
    host,
    ...(host === 'https-subpath' ? { formFactors: ['mobile'] as const } : {}),
    log: (s) => console.error(s),
    ...(pages ? { pages } : {}),
  });
  console.log(markdown);
}
