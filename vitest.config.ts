import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const FLEET = 'test/fleet';

/**
 * The fleet tests that start an engine (`startPrometheus`, test/fleet/prometheus-harness.ts) run a second time on
 * VictoriaMetrics; those that read a fake client run once, in the first project, since the engine plays no part.
 */
const engineTests = readdirSync(FLEET)
  .filter((f) => f.endsWith('.test.ts') && /\bstartPrometheus\(/.test(readFileSync(`${FLEET}/${f}`, 'utf8')))
  .map((f) => `${FLEET}/${f}`);

/**
 * Fleet tests of Prometheus's own tools, which VictoriaMetrics does not have: Prometheus only. Neither starts an
 * engine through the harness, so neither is in `engineTests`; they are named here so that the reason is written down.
 */
const prometheusOnly = [
  // promtool check/test rules: Prometheus's rule tester (vmalert-rules.test.ts checks the same file with vmalert).
  `${FLEET}/rules.test.ts`,
  // `npm run demo:fleet` starts Debian's Prometheus itself: the demo a newcomer runs, not a choice of engine.
  `${FLEET}/demo-fleet.test.ts`,
  // Rules backfilled by promtool as TSDB blocks into Prometheus's folder (vmalert-rules.test.ts replays the same
  // rules on VictoriaMetrics).
  `${FLEET}/rules-path.test.ts`,
  `${FLEET}/rules-reasons.test.ts`,
  `${FLEET}/rules-outdated.test.ts`,
  // Its cluster is backfilled once as Prometheus TSDB blocks and copied in (independent/cluster.ts).
  `${FLEET}/independent.test.ts`,
];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 20_000,
    // The soak test forces GC to compare heap before and after.
    execArgv: ['--expose-gc'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/server/**/*.test.ts',
            `${FLEET}/**/*.test.ts`,
            'test/sync/**/*.test.ts',
          ],
          env: { FLEET_ENGINE: 'prometheus' },
        },
      },
      {
        extends: true,
        test: {
          name: 'victoria-metrics',
          include: engineTests,
          exclude: prometheusOnly,
          env: { FLEET_ENGINE: 'victoria-metrics' },
        },
      },
    ],
  },
});
