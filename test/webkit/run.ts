/**
 * Runs the WebKit (Safari engine) tests: `node test/webkit/run.ts` (needs a built dist/ and dist-base/).
 * Under xvfb-run, node:test over test/webkit/*.test.ts; writes the counts to
 * test-results/webkit.json ({ passed, failed, skipped, reason? }) for `npm test`'s closing line.
 * Without WebKitWebDriver or xvfb-run it prints why, records the tests as skipped and exits 0.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webkitMissing } from './webkit.ts';

const OUT = 'test-results/webkit.json';
const TAP = 'test-results/webkit.tap';
mkdirSync('test-results', { recursive: true });
const files = readdirSync('test/webkit')
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('test/webkit', f));

const missing =
  webkitMissing() ??
  (existsSync('dist/sw.js') ? null : 'no built site (dist/sw.js): run `npm run build` first') ??
  (existsSync('dist-base/sw.js')
    ? null
    : 'no sub-path build (dist-base/sw.js): run `BASE_PATH=/saturate/ OUT_DIR=dist-base npm run build` first');
if (missing) {
  // Count the tests that did not run, so the closing line says so.
  const count = files.reduce((n, f) => n + (readFileSync(f, 'utf8').match(/^\s*it\(/gm)?.length ?? 0), 0);
  console.log(`webkit: skipped (${missing})`);
  writeFileSync(OUT, JSON.stringify({ passed: 0, failed: 0, skipped: count, reason: missing }));
  process.exit(0);
}

const r = spawnSync(
  'xvfb-run',
  [
    '-a',
    process.execPath,
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${TAP}`,
    ...files,
  ],
  { stdio: 'inherit', timeout: 300_000 },
);
const tap = existsSync(TAP) ? readFileSync(TAP, 'utf8') : '';
const num = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
const passed = num('pass');
let failed = num('fail') + num('cancelled');
if (r.status !== 0 && failed === 0) failed = 1; // crashed before reporting (no display, driver died, timeout)
writeFileSync(OUT, JSON.stringify({ passed, failed, skipped: num('skipped') + num('todo') }));
process.exit(r.status === 0 && failed === 0 ? 0 : 1);
