/** A lab step is the learner's turn until they act; red only after they acted and a full window still fails. */
import { describe, expect, test } from 'vitest';
import { describeCheck, type Check, type CheckResult } from '../../src/lib/checks.ts';
import { shownStepState, type StepMoment } from '../../src/lib/lab/step-state.ts';

const failing: CheckResult = { state: 'fail', text: 'mean GPU-Util over 10 s > 85%: 40%', observed: 40, children: [] };
const at = (m: Partial<StepMoment>): StepMoment => ({
  result: failing,
  fixable: true,
  fixFromMs: null,
  stepStartedAtMs: 100_000,
  lastSampleMs: 130_000,
  windowS: 10,
  ...m,
});

describe('shownStepState', () => {
  test('a step with a fix button is "your turn" while failing before the fix, however long it waits', () => {
    expect(shownStepState(at({ lastSampleMs: 100_500 }))).toBe('your-turn');
    expect(shownStepState(at({ lastSampleMs: 900_000 }))).toBe('your-turn');
  });

  test('after the fix: checking for one window, then red if it still fails', () => {
    expect(shownStepState(at({ fixFromMs: 125_000, lastSampleMs: 130_000 }))).toBe('checking');
    expect(shownStepState(at({ fixFromMs: 125_000, lastSampleMs: 135_000 }))).toBe('fail');
  });

  test('a pass shows at once, before or after the fix', () => {
    const pass = { ...failing, state: 'pass' as const };
    expect(shownStepState(at({ result: pass }))).toBe('pass');
    expect(shownStepState(at({ result: pass, fixFromMs: 129_000 }))).toBe('pass');
  });

  test("a step to run or watch (no fix button) is the learner's turn for its first window, then judged", () => {
    expect(shownStepState(at({ fixable: false, lastSampleMs: 105_000 }))).toBe('your-turn');
    expect(shownStepState(at({ fixable: false, lastSampleMs: 110_000 }))).toBe('fail');
  });
});

describe('describeCheck groups mixed and/or', () => {
  const util: Check = { metric: 'gpuUtilPct', agg: 'mean', windowS: 10, op: '>', value: 85 };
  const sm: Check = { metric: 'smActivePct', agg: 'mean', windowS: 10, op: '<', value: 50 };
  const power: Check = { metric: 'powerPctOfLimit', agg: 'mean', windowS: 10, op: '<', value: 40 };

  test('"A and either B or C", never "A and B or C"', () => {
    expect(describeCheck({ all: [util, { any: [sm, power] }] })).toBe(
      'mean GPU-Util over 10 s > 85%, and either mean SM activity over 10 s < 50% or mean Power (% of limit) over 10 s < 40%',
    );
  });

  test('"both … and …" inside an or; parentheses for three or more; a flat list stays plain', () => {
    expect(describeCheck({ any: [{ all: [util, sm] }, power] })).toMatch(/^both .+ and .+, or .+$/);
    expect(describeCheck({ any: [{ all: [util, sm, power] }, power] })).toMatch(/^\(.+ and .+ and .+\), or .+$/);
    expect(describeCheck({ all: [util, sm] })).not.toMatch(/both|either|\(/);
  });
});
