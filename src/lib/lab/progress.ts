/**
 * A lab's progress as this device keeps it between visits: how many steps passed and the means each
 * passed step ended with (the baselines `ratioTo: 'previous-step'` compares against). The lab runner
 * (src/client/lab-runner.ts) writes it to localStorage after each passed step and reads it back when the
 * page opens, so a reconnect, a reload or a lab server restart resumes at the live step. Pure: no storage here.
 *
 * Stored shape (JSON, version 1): `{ "v": 1, "passed": 1, "baselines": [{ "gpuUtilPct": 31.2, … }] }`.
 */
import type { MetricId } from './metrics.ts';
import { startRun, type RunState } from './run.ts';

/** Steps passed in an unfinished run, and their baselines. */
export interface SavedRun {
  /** Steps passed, 1 … steps − 1 (a finished lab is not saved: its debrief stays unlocked instead). */
  passed: number;
  baselines: Partial<Record<MetricId, number | null>>[];
}

/** Where a lab's progress is kept in localStorage. */
export const labProgressKey = (labId: string): string => `saturate:lab-progress:${labId}`;

/** The progress to keep for `run` of a lab with `stepCount` steps: null before the first pass and once done. */
export function savedRunOf(run: RunState, stepCount: number): SavedRun | null {
  if (run.index <= 0 || run.index >= stepCount) return null;
  return { passed: run.index, baselines: run.baselines.slice(0, run.index) };
}

/** The stored text for `saved`. */
export function serializeSavedRun(saved: SavedRun): string {
  return JSON.stringify({ v: 1, ...saved });
}

const isBaseline = (b: unknown): b is Partial<Record<MetricId, number | null>> =>
  typeof b === 'object' &&
  b !== null &&
  !Array.isArray(b) &&
  Object.values(b).every((v) => v === null || (typeof v === 'number' && Number.isFinite(v)));

/**
 * Reads stored progress back for a lab with `stepCount` steps; anything malformed, from another version,
 * or past the lab's steps (the lab changed) is null: the lab starts at step 1 and nothing breaks.
 * @example parseSavedRun('{"v":1,"passed":1,"baselines":[{}]}', 2) // { passed: 1, baselines: [{}] }
 */
export function parseSavedRun(text: string | null, stepCount: number): SavedRun | null {
  if (!text) return null;
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  const r = o as { v?: unknown; passed?: unknown; baselines?: unknown } | null;
  if (!r || r.v !== 1 || typeof r.passed !== 'number' || !Number.isInteger(r.passed)) return null;
  if (r.passed < 1 || r.passed >= stepCount) return null;
  if (!Array.isArray(r.baselines) || r.baselines.length !== r.passed || !r.baselines.every(isBaseline)) return null;
  return { passed: r.passed, baselines: r.baselines };
}

/** A run that resumes `saved` (its live step starts at the first sample it sees), or a fresh one. */
export function resumeRun(saved: SavedRun | null): RunState {
  if (!saved) return startRun();
  return { index: saved.passed, startedAtMs: null, passedAtMs: [], baselines: saved.baselines.map((b) => ({ ...b })) };
}
