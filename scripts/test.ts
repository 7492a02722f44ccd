/**
 * `npm test`: format check, type check, unit tests, build, end-to-end tests — then one closing line with the
 * totals ("tests: N passed, N failed"). Each step's runner prints its own report as it goes.
 * Flags: --skip-build (reuse dist/ and dist-base/), --only=unit|e2e|webkit.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';

const args = new Set(process.argv.slice(2));
const only = [...args].find((a) => a.startsWith('--only='))?.slice(7);
const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', FORCE_COLOR: process.env['FORCE_COLOR'] ?? '0' };
mkdirSync('test-results', { recursive: true });

interface Step {
  name: string;
  cmd: string[];
  /** Reads passed/failed counts from the runner's JSON report, when it has one. */
  counts?: () => { passed: number; failed: number; skipped: number };
  when?: () => boolean;
  /** Extra environment for this step. */
  env?: Record<string, string>;
}

const readJson = (path: string): unknown => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null);

const steps: Step[] = [
  { name: 'format', cmd: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'], when: () => !only },
  { name: 'type check', cmd: ['npx', 'astro', 'check', '--minimumSeverity', 'warning'], when: () => !only },
  {
    name: 'unit',
    cmd: ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=test-results/unit.json'],
    when: () => !only || only === 'unit',
    counts: () => {
      const r = readJson('test-results/unit.json') as {
        numPassedTests: number;
        numFailedTests: number;
        numPendingTests: number;
      } | null;
      return { passed: r?.numPassedTests ?? 0, failed: r?.numFailedTests ?? 0, skipped: r?.numPendingTests ?? 0 };
    },
  },
  { name: 'build', cmd: ['npx', 'astro', 'build'], when: () => !args.has('--skip-build') && (!only || only === 'e2e') },
  {
    // The same site for a static host under a sub-path (test/e2e/https-subpath.spec.ts serves it over HTTPS).
    name: 'build under /saturate/',
    cmd: ['npx', 'astro', 'build'],
    env: { BASE_PATH: '/saturate/', OUT_DIR: 'dist-base', SITE_URL: 'https://saturate.example' },
    when: () => !args.has('--skip-build') && (!only || only === 'e2e'),
  },
  {
    name: 'e2e',
    cmd: ['npx', 'playwright', 'test'],
    when: () => !only || only === 'e2e',
    counts: () => {
      const r = readJson('test-results/e2e.json') as {
        stats: { expected: number; unexpected: number; flaky: number; skipped: number };
      } | null;
      return {
        passed: (r?.stats.expected ?? 0) + (r?.stats.flaky ?? 0),
        failed: r?.stats.unexpected ?? 0,
        skipped: r?.stats.skipped ?? 0,
      };
    },
  },
  {
    // Safari's engine (WebKitGTK); prints why and counts its tests as skipped when WebKitWebDriver or xvfb-run is missing.
    name: 'webkit',
    cmd: ['node', 'test/webkit/run.ts'],
    when: () => !only || only === 'e2e' || only === 'webkit',
    counts: () => {
      const r = readJson('test-results/webkit.json') as { passed: number; failed: number; skipped: number } | null;
      return { passed: r?.passed ?? 0, failed: r?.failed ?? 0, skipped: r?.skipped ?? 0 };
    },
  },
];

let passed = 0;
let failed = 0;
let skipped = 0;
const failedSteps: string[] = [];
for (const step of steps) {
  if (step.when && !step.when()) continue;
  console.log(`\n▶ ${step.name}: ${step.cmd.join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(step.cmd[0]!, step.cmd.slice(1), { stdio: 'inherit', env: { ...env, ...step.env } });
  console.log(
    `◀ ${step.name}: ${r.status === 0 ? 'ok' : `failed (exit ${r.status ?? r.signal})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const c = step.counts?.() ?? { passed: 0, failed: 0, skipped: 0 };
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped;
  if (r.status !== 0) {
    failedSteps.push(step.name);
    // A failed check or build counts as one failure, and so does a runner that failed with no test failed: a test
    // file whose setup (beforeAll) threw reports its tests as skipped, and the closing line must not say "0 failed".
    if (c.failed === 0) failed += 1;
    break; // later steps depend on earlier ones
  }
}
if (failedSteps.length) console.log(`\nFailed step: ${failedSteps.join(', ')}`);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedSteps.length ? 1 : 0);
