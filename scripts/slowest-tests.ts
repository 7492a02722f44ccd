/**
 * The slowest tests of a Playwright JSON report, with their share of their time limit:
 * `node scripts/slowest-tests.ts test-results/e2e.json [count]`.
 */
import { readFileSync } from 'node:fs';

interface Suite {
  specs?: {
    title: string;
    file: string;
    line: number;
    tests: { timeout: number; results: { duration: number }[] }[];
  }[];
  suites?: Suite[];
}
const [file = 'test-results/e2e.json', count = '10'] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8')) as { suites: Suite[] };
const rows: { name: string; ms: number; limit: number }[] = [];
const walk = (s: Suite) => {
  for (const spec of s.specs ?? [])
    for (const t of spec.tests)
      for (const r of t.results)
        rows.push({ name: `${spec.file}:${spec.line} ${spec.title}`, ms: r.duration, limit: t.timeout });
  for (const c of s.suites ?? []) walk(c);
};
report.suites.forEach(walk);
for (const r of rows.sort((a, b) => b.ms - a.ms).slice(0, Number(count)))
  console.log(
    `${(r.ms / 1000).toFixed(1).padStart(6)} s  ${String(Math.round((100 * r.ms) / r.limit)).padStart(3)}% of ${r.limit / 1000} s  ${r.name}`,
  );
