/**
 * What the live step's badge says. A check judges every sample, but a step the learner has not acted on yet is
 * their turn, not a failure: it turns red only once they acted (applied its fix, or had a full check window to run
 * its command or watch) and a full window of samples after that still fails it. A pass shows at once.
 */
import type { CheckResult, CheckState } from '../checks.ts';

/** The badge's state: a check state, or the learner's turn, or checking the window after their change. */
export type ShownState = CheckState | 'your-turn' | 'checking';

/** Badge words per shown state. */
export const SHOWN_TEXT: Record<ShownState, string> = {
  pass: 'Passing',
  fail: 'Not yet: failing',
  waiting: 'Collecting samples',
  unknown: "Can't tell",
  'your-turn': 'Your turn',
  checking: 'Checking your change…',
};

export interface StepMoment {
  result: CheckResult | null;
  /** The step has a fix the page or the lab server's simulation can apply (a button), rather than a command to run. */
  fixable: boolean;
  /** The last sample before the fix took effect (ms), null while it is not applied. */
  fixFromMs: number | null;
  /** When the step became live (ms, sample time); null before the first sample. */
  stepStartedAtMs: number | null;
  /** The newest sample's time, ms. */
  lastSampleMs: number | null;
  /** The seconds of samples the step's check reads (checkSpanS). */
  windowS: number;
}

/**
 * The live step's shown state.
 * @example shownStepState({ result: { state: 'fail', … }, fixable: true, fixFromMs: null, … }) // 'your-turn'
 */
export function shownStepState(m: StepMoment): ShownState {
  const state = m.result?.state ?? 'waiting';
  if (state === 'pass' || state === 'unknown') return state;
  const actedAtMs = m.fixable ? m.fixFromMs : m.stepStartedAtMs;
  if (actedAtMs === null) return 'your-turn';
  const seenS = m.lastSampleMs === null ? 0 : (m.lastSampleMs - actedAtMs) / 1000;
  if (seenS < m.windowS) return m.fixable ? 'checking' : 'your-turn';
  return state;
}
