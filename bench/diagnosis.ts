/**
 * The diagnosis benchmark: the real-telemetry set (test/fixtures/real), the same cases at fleet
 * resolution (30 s samples, no host CPU, no throughput), and the simulator's noisy and fleet traces.
 * Right / wrong / can't tell per cause, "wrong with high confidence", and the confusion matrices.
 * Run alone: `node bench/diagnosis.ts`; in the report: `npm run bench -- --only=diagnosis`.
 */
import { diagnose } from '../src/lib/diagnose/index.ts';
import { FLEET, caseMessages, caseProfile, fleetMessages, loadRealCases } from '../test/fixtures/real/convert.ts';
import { SIM_CASES, fleetTrace, trace } from '../test/fixtures/sim-traces.ts';
import { confusion, outcome, perCause, tally, type Scored } from '../test/fixtures/score.ts';

/** Every set scored, and the Markdown report. */
export function benchDiagnosis(): { markdown: string; realWrongHigh: number; simRightPct: number } {
  const cases = loadRealCases();
  const real: Scored[] = cases.map((c) => ({
    id: c.id,
    truth: c.truth,
    alsoRight: c.alsoRight,
    got: diagnose(caseMessages(c), undefined, [], [caseProfile(c)]),
  }));
  const realFleet: Scored[] = cases.map((c) => ({
    id: c.id,
    truth: c.truth,
    alsoRight: c.alsoRight,
    got: diagnose(fleetMessages(c), FLEET.windowS),
  }));
  const sim: Scored[] = SIM_CASES.flatMap((c) =>
    Array.from({ length: 12 }, (_, s) => ({
      id: c.scenario,
      truth: c.label,
      got: diagnose(trace(c, 1000 + s * 7919)),
    })),
  );
  const simFleet: Scored[] = SIM_CASES.map((c) => ({
    id: c.scenario,
    truth: c.label,
    got: diagnose(fleetTrace(c), FLEET.windowS),
  }));
  const perCase = [
    '| case | cause | diagnosis | confidence | outcome | fleet |',
    '|---|---|---|---|---|---|',
    ...real.map((r, i) => {
      const f = realFleet[i] as Scored;
      return `| [${r.id}](${cases[i]?.url}) | ${r.truth} | ${r.got.kind} | ${r.got.confidence} | ${outcome(r)} | ${f.got.kind} (${outcome(f)}) |`;
    }),
  ].join('\n');
  const block = (s: string): string => `\`\`\`\n${s}\n\`\`\``;
  const t = tally(sim);
  const markdown = [
    `### Real telemetry (${cases.length} cases from public threads)`,
    perCause(real),
    block(confusion(real, 'real set')),
    '### The same cases at fleet resolution (30 s samples, no host CPU, no throughput)',
    perCause(realFleet),
    block(confusion(realFleet, 'real set, fleet resolution')),
    '### Simulator: noisy traces (12 seeds per case) and fleet resolution',
    block(confusion(sim, 'simulator, noisy')),
    block(confusion(simFleet, 'simulator, fleet resolution')),
    '### Every real case',
    perCase,
  ].join('\n\n');
  return { markdown, realWrongHigh: tally(real).wrongHigh, simRightPct: (100 * t.right) / t.n };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(benchDiagnosis().markdown);
